#include "pdctl/ops/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pdctl/engine/clock.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/load/request_body.hpp"
#include "pdctl/ops/bench_kv.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::ops {
namespace {

// How often a soak reads the groups' counters while the load runs: often enough that a server that
// restarted twice between two reads is unlikely, rare enough to cost the servers nothing.
constexpr auto kSoakCounterEvery = std::chrono::seconds(5);
constexpr auto kFlushTimeout = std::chrono::seconds(30);
// A workload of unique prompts that finds more of them in the prefix cache than this was flattered.
constexpr double kUniqueCacheShareFlag = 0.01;
// Tokens a unique prompt may share with another run's by chance, per request on average.
constexpr long long kChanceCachedTokensPerRequest = 2;
// More tags than this in a level are not a grouping (a dataset's prompts), only a label per request.
constexpr std::size_t kMostTagsShown = 16;
// Each level of an open loop sends at least this long by default, so a queue that grows is seen.
constexpr double kRateLevelSeconds = 10;

const plan::Stage& pick_router(const plan::Plan& plan, const std::string& name) {
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Router) continue;
        if (name.empty() || stage.role == name) return stage;
    }
    if (name.empty()) throw Failure(ExitCode::kUsage, "the config has no router role to send load through");
    throw Failure(ExitCode::kUsage, fmt::format("--router {}: no router role of that name", name));
}

BenchGroup bench_group(const config::Cluster& cluster, const plan::Stage& stage) {
    BenchGroup group;
    group.role = stage.role;
    group.mode = stage.mode;
    if (const auto* role = cluster.find_role(stage.role)) {
        group.nodes = static_cast<int>(role->nodes.size());
        group.gpus = group.nodes * role->gpus_per_node;
        group.tp = role->tp_size ? role->tp_size : group.gpus;  // as the plan passes --tp-size
        if (role->runtime != config::RuntimeKind::Process) group.image = role->container.image;
    }
    return group;
}

int default_requests(const BenchRow& row, int concurrency, std::optional<double> rate) {
    switch (row.workload) {
        case BenchWorkload::kSharedPrefix:
            return row.shared_prefix.requests();
        case BenchWorkload::kMultiTurn:  // whole conversations: one per stream, at least four
            return row.multi_turn.turns * std::max(4, concurrency);
        default:
            break;
    }
    if (rate && std::isfinite(*rate))
        return std::max(10, static_cast<int>(std::ceil(*rate * kRateLevelSeconds)));
    return std::max(10, 4 * concurrency);
}

load::RequestPlan request_plan(const BenchRow& row, const load::PromptSource& source) {
    switch (row.workload) {
        case BenchWorkload::kSharedPrefix:
            return load::shared_prefix_workload(source, row.shared_prefix);
        case BenchWorkload::kMultiTurn:
            return load::multi_turn_workload(source, row.multi_turn);
        case BenchWorkload::kDataset:
            return load::dataset_workload(source, *row.dataset);
        case BenchWorkload::kUnique:
            break;
    }
    return load::unique_workload(source, row.input_tokens, row.output_tokens);
}

// The share of prompt tokens the workload means the cache to serve over a level's measured requests.
std::optional<double> predicted_share(const BenchRow& row, const BenchSpec& spec, int measured) {
    switch (row.workload) {
        case BenchWorkload::kUnique:
            return 0.0;
        case BenchWorkload::kSharedPrefix:
            return load::predicted_shared_prefix_hit_share(row.shared_prefix,
                                                           static_cast<std::uint64_t>(spec.warmup),
                                                           static_cast<std::uint64_t>(measured));
        case BenchWorkload::kMultiTurn: {
            // Each turn is an equal share of the requests: the prompt-weighted mean of the turns' shares.
            double cached = 0, prompts = 0;
            for (int turn = 1; turn <= row.multi_turn.turns; ++turn) {
                const double tokens = load::multi_turn_prompt_tokens(row.multi_turn, turn);
                cached += tokens * load::predicted_multi_turn_hit_share(row.multi_turn, turn);
                prompts += tokens;
            }
            return prompts > 0 ? std::optional(cached / prompts) : std::nullopt;
        }
        case BenchWorkload::kDataset:
            break;
    }
    return std::nullopt;
}

std::string level_name(const std::string& row, const BenchLevel& level) {
    return level.rate ? fmt::format("{} at rate {:g}/s", row, *level.rate)
                      : fmt::format("{} at concurrency {}", row, level.concurrency);
}

void judge_requests(BenchReport& report) {
    for (const auto& row : report.rows) {
        for (const auto& level : row.levels) {
            const auto& stats = level.stats;
            if (stats.failed == 0) continue;
            const auto& top = stats.errors.front();
            report.problems.push_back(fmt::format(
                "{}: {} of {} requests failed; {}× {}{}", level_name(row.row.name, level), stats.failed,
                stats.failed + stats.ok, top.count, top.error,
                stats.errors.size() > 1 ? fmt::format(" (and {} other errors)", stats.errors.size() - 1)
                                        : ""));
        }
    }
}

// Every SGLang group's rank 0 forgets its prefix cache, so the row's first prompts find nothing there.
void flush_caches(const Deployment& deployment, const BenchSpec& spec, health::HttpProber& prober,
                  const std::string& row, std::vector<std::string>& notes) {
    std::vector<std::pair<std::string, std::string>> targets;  // who, url
    if (!spec.base_url.empty()) {
        targets.emplace_back(spec.base_url, util::url_with_path(spec.base_url, "/flush_cache"));
    } else {
        for (const auto& stage : deployment.plan.stages)
            if (stage.kind == config::RoleKind::Sglang)
                targets.emplace_back(fmt::format("{} ({})", stage.role, stage.gate.node),
                                     util::url_with_path(stage.gate.url, "/flush_cache"));
    }
    std::vector<health::ProbeResult> answers(targets.size());
    util::for_each_parallel(targets.size(), util::kEngineFanout, [&](std::size_t i) {
        answers[i] = prober.post(targets[i].second, "", "application/json", {kFlushTimeout, kFlushTimeout});
    });
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (answers[i].status == 200) continue;
        const std::string why = answers[i].status == 0 ? answers[i].error
                                                       : fmt::format("HTTP {}: {}", answers[i].status,
                                                                     util::trim(answers[i].body));
        notes.push_back(
            fmt::format("row {}: {} did not flush its prefix cache: {}", row, targets[i].first, why));
    }
}

// A run's requests never share a prefix with each other: every request gets an index of its own in
// the run (warm-ups, rows, levels and repeats alike).
struct RequestIndex {
    std::uint64_t next = 0;
};

load::LoadResult run_once(const BenchSpec& spec, const BenchRow& row, const std::string& url, int concurrency,
                          std::optional<double> rate, RequestIndex& index, BenchProgress& where,
                          const std::function<void(const BenchProgress&)>& progress) {
    load::LoadSpec load;
    load.url = url;
    load.input_tokens = row.input_tokens;
    load.output_tokens = row.output_tokens;
    load.concurrency = concurrency;
    load.rate = rate;
    load.burstiness = spec.burstiness;
    load.duration = spec.duration;
    load.requests = spec.requests > 0 || spec.duration.count() > 0 ? spec.requests
                                                                   : default_requests(row, concurrency, rate);
    load.warmup = spec.warmup;
    load.timeout = spec.timeout;
    load.seed = spec.seed + index.next;  // the arrival times differ between levels too
    // Every request of the run has its own global index: no prompt of this level is another's.
    load.request = request_plan(row, {load::run_nonce_from_seed(spec.seed), index.next, true});
    load.cancelled = [] { return engine::interrupted(); };
    auto ran = load::run_load(load, [&](const load::LoadProgress& now) {
        if (!progress) return;
        where.load = now;
        progress(where);
    });
    index.next += static_cast<std::uint64_t>(spec.warmup) + ran.records.size();
    return ran;
}

// The requests of each tag, in the tags' order (a multi-turn row: turn 1, turn 2, ...).
std::vector<std::pair<std::string, load::RowStats>> stats_by_tag(
    const std::vector<load::RequestRecord>& records, int gpus) {
    std::vector<std::pair<std::string, std::vector<load::RequestRecord>>> tagged;
    for (const auto& record : records) {
        if (record.tag.empty()) continue;
        auto it = std::find_if(tagged.begin(), tagged.end(),
                               [&](const auto& entry) { return entry.first == record.tag; });
        if (it == tagged.end()) it = tagged.insert(tagged.end(), {record.tag, {}});
        it->second.push_back(record);
    }
    // A dataset tags every prompt with its own text's tag: only a few tags are a grouping worth showing.
    if (tagged.size() > kMostTagsShown) return {};
    // "turn 2" before "turn 10", whichever turn the level's first measured request was.
    const auto number_of = [](const std::string& tag) {
        const auto digits = tag.find_last_not_of("0123456789") + 1;
        return std::pair(tag.substr(0, digits), digits < tag.size() ? std::stoll(tag.substr(digits)) : -1LL);
    };
    std::stable_sort(tagged.begin(), tagged.end(),
                     [&](const auto& a, const auto& b) { return number_of(a.first) < number_of(b.first); });
    std::vector<std::pair<std::string, load::RowStats>> out;
    for (const auto& [tag, group] : tagged) out.emplace_back(tag, load::summarize(group, 0, gpus));
    return out;
}

BenchLevel run_level(const BenchSpec& spec, const BenchRow& row, const std::string& url, int concurrency,
                     std::optional<double> rate, int gpus, RequestIndex& index,
                     const std::function<void(const BenchProgress&)>& progress) {
    BenchLevel level;
    level.concurrency = concurrency;
    level.rate = rate;
    BenchProgress where{&row, concurrency, rate, {}};
    double duration = 0;
    for (int run = 0; run < std::max(1, spec.repeat); ++run) {
        auto ran = run_once(spec, row, url, concurrency, rate, index, where, progress);
        level.runs.push_back(load::summarize(ran.records, ran.duration_s, gpus));
        duration += ran.duration_s;
        std::move(ran.records.begin(), ran.records.end(), std::back_inserter(level.records));
        if (ran.cancelled) {
            level.cancelled = true;
            break;
        }
    }
    level.stats = load::summarize(level.records, duration, gpus);
    if (spec.slo) level.goodput = load::goodput(*spec.slo, level.records, duration);
    level.by_tag = stats_by_tag(level.records, gpus);
    level.predicted_cache_share = predicted_share(row, spec, static_cast<int>(level.records.size()));
    // Unique prompts may share a token or two with another run's by chance (load/request_body.hpp);
    // more than that, over more than 1 % of the prompts, is a cache serving what the bench meant fresh.
    const auto& stats = level.stats;
    level.cache_flagged = row.workload == BenchWorkload::kUnique &&
                          stats.cached_share() > kUniqueCacheShareFlag &&
                          stats.cached_tokens > kChanceCachedTokensPerRequest * stats.cache_reported;
    return level;
}

void note_cache(BenchReport& report) {
    for (const auto& row : report.rows)
        for (const auto& level : row.levels)
            if (level.cache_flagged)
                report.notes.push_back(fmt::format(
                    "{}: the prefix cache served {:.1f}% of the prompt tokens, though every prompt was new "
                    "to the run: TTFT and prefill tok/s look better than the deployment is (an earlier run "
                    "with the same --seed? use --flush-cache)",
                    level_name(row.row.name, level), level.stats.cached_share() * 100));
}

std::string bench_url(const Deployment& deployment, const BenchSpec& spec, std::string& router_role) {
    if (!spec.base_url.empty()) {
        router_role.clear();
        std::string host, path;
        int port = 0;
        if (!health::split_http_url(spec.base_url, host, port, path))
            throw Failure(ExitCode::kUsage,
                          fmt::format("--base-url {}: an http://HOST:PORT address of an SGLang-compatible "
                                      "router or server",
                                      spec.base_url));
        return util::url_with_path(spec.base_url, "/generate");
    }
    const plan::Stage& router = pick_router(deployment.plan, spec.router);
    router_role = router.role;
    return util::url_with_path(router.gate.url, "/generate");
}

}  // namespace

std::vector<BenchRow> validation_rows() {
    return {unique_row("warm-up", 6, 16), unique_row("medium", 1680, 512), unique_row("long", 5280, 256)};
}

BenchRow unique_row(std::string name, int input_tokens, int output_tokens) {
    BenchRow row;
    row.name = std::move(name);
    row.input_tokens = input_tokens;
    row.output_tokens = output_tokens;
    return row;
}

BenchRow soak_row() {
    return unique_row("long", 5280, 256);
}

BenchRow shared_prefix_row() {
    BenchRow row;
    row.name = "shared-prefix";
    row.workload = BenchWorkload::kSharedPrefix;
    // bench_serving's generated-shared-prefix shape, with fewer groups so a default run is minutes.
    row.shared_prefix = {8, 8, 2048, 128, 256};
    row.input_tokens = row.shared_prefix.system_tokens + row.shared_prefix.question_tokens;
    row.output_tokens = row.shared_prefix.output_tokens;
    return row;
}

BenchRow multi_turn_row() {
    BenchRow row;
    row.name = "multi-turn";
    row.workload = BenchWorkload::kMultiTurn;
    row.multi_turn = {4, 256, 128, 128};
    row.input_tokens = load::multi_turn_prompt_tokens(row.multi_turn, 1);
    row.output_tokens = row.multi_turn.output_tokens;
    return row;
}

BenchReport run_bench(const Deployment& deployment, const BenchSpec& spec,
                      const std::function<void(const BenchProgress&)>& progress) {
    if (spec.ramp && !spec.slo)
        throw Failure(ExitCode::kUsage,
                      "--rate ramp searches the highest rate that meets an SLO: give --slo, "
                      "e.g. --slo ttft=2s,itl=50ms");
    BenchReport report;
    report.url = bench_url(deployment, spec, report.router_role);
    report.cluster = deployment.plan.cluster;
    report.config = deployment.plan.fingerprint;
    report.version = PDCTL_VERSION;
    report.started = util::utc_text(util::epoch_ms_now());
    report.spec = spec;
    if (spec.base_url.empty()) {
        for (const auto& stage : deployment.plan.stages) {
            if (stage.kind != config::RoleKind::Sglang) continue;
            const BenchGroup group = bench_group(deployment.cluster, stage);
            (group.mode == "prefill" ? report.prefill_gpus : report.decode_gpus) += group.gpus;
            report.groups.push_back(group);
        }
        report.kv = kv_groups(deployment);
    }
    auto& prober = *deployment.prober;
    read_kv_counters(prober, report.kv, KvRead::kFirst);

    const int gpus = report.prefill_gpus + report.decode_gpus;
    RequestIndex index;
    {
        // A soak reads the counters while it runs, so a server that restarted is noticed.
        std::optional<KvWatch> watch;
        if (spec.soak && !report.kv.empty()) watch.emplace(prober, report.kv, kSoakCounterEvery);
        for (const auto& row : spec.rows) {
            if (spec.flush_cache) flush_caches(deployment, spec, prober, row.name, report.notes);
            BenchRowResult result{row, {}};
            const auto add = [&](int concurrency, std::optional<double> rate) {
                result.levels.push_back(
                    run_level(spec, row, report.url, concurrency, rate, gpus, index, progress));
                return !result.levels.back().cancelled;
            };
            if (spec.ramp) {
                RateSearch search;
                while (const auto rate = search.next()) {
                    if (!add(spec.concurrency.front(), *rate)) break;
                    search.record(*rate, result.levels.back().goodput->holds());
                }
                report.ramp = search.steps();
                report.saturation_rps = search.saturation();
                report.first_failing_rps = search.first_failing();
            } else if (!spec.rates.empty()) {
                for (const double rate : spec.rates)
                    if (!add(spec.concurrency.front(), rate)) break;
            } else {
                for (const int concurrency : spec.concurrency)
                    if (!add(concurrency, std::nullopt)) break;
            }
            report.rows.push_back(std::move(result));
            if (engine::interrupted()) break;
        }
    }
    report.cancelled = engine::interrupted();
    read_kv_counters(prober, report.kv, KvRead::kLast);
    judge_requests(report);
    if (spec.soak) judge_kv(report.kv, spec.allow_unverified, report.problems, report.notes);
    note_cache(report);
    if (report.cancelled) report.problems.push_back("interrupted: the numbers cover what finished");
    return report;
}

}  // namespace pdctl::ops

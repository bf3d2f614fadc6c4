#include "pdctl/ops/bench.hpp"

#include <fmt/chrono.h>
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

namespace pdctl::ops {
namespace {

// How often a soak reads the groups' counters while the load runs: often enough that a server that
// restarted twice between two reads is unlikely, rare enough to cost the servers nothing.
constexpr auto kSoakCounterEvery = std::chrono::seconds(5);
constexpr auto kFlushTimeout = std::chrono::seconds(30);
// A workload of unique prompts that finds more of them in the prefix cache than this was flattered.
constexpr double kUniqueCacheShareFlag = 0.01;
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

int default_requests(int concurrency, std::optional<double> rate) {
    if (rate && std::isfinite(*rate))
        return std::max(10, static_cast<int>(std::ceil(*rate * kRateLevelSeconds)));
    return std::max(10, 4 * concurrency);
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
    load.requests =
        spec.requests > 0 || spec.duration.count() > 0 ? spec.requests : default_requests(concurrency, rate);
    load.warmup = spec.warmup;
    load.timeout = spec.timeout;
    load.seed = spec.seed + index.next;  // the arrival times differ between levels too
    const std::uint64_t first = index.next;
    load.request = [&row, &spec, first](std::uint64_t n) {
        load::PlannedRequest planned;
        planned.input_tokens = row.input_tokens;
        planned.output_tokens = row.output_tokens;
        planned.body = load::generate_request_body(row.input_tokens, row.output_tokens, spec.seed, first + n);
        return planned;
    };
    load.cancelled = [] { return engine::interrupted(); };
    auto ran = load::run_load(load, [&](const load::LoadProgress& now) {
        if (!progress) return;
        where.load = now;
        progress(where);
    });
    index.next += static_cast<std::uint64_t>(spec.warmup) + ran.records.size();
    return ran;
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
    level.cache_flagged = level.stats.cached_share() > kUniqueCacheShareFlag;
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
    return {{"warm-up", 6, 16}, {"medium", 1680, 512}, {"long", 5280, 256}};
}

BenchRow soak_row() {
    return {"long", 5280, 256};
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
    report.started =
        fmt::format("{:%Y-%m-%dT%H:%M:%S}Z",
                    fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
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
    health::RealHttpProber prober;
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

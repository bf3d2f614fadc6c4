#include "pdctl/ops/bench.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pdctl/engine/clock.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/health/prometheus.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

constexpr auto kMetricsTimeout = std::chrono::seconds(10);
constexpr const char* kTransferFailed = "sglang:num_transfer_failed_reqs_total";
constexpr const char* kBootstrapFailed = "sglang:num_bootstrap_failed_reqs_total";

const plan::Stage& pick_router(const plan::Plan& plan, const std::string& name) {
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Router) continue;
        if (name.empty() || stage.role == name) return stage;
    }
    if (name.empty()) throw Failure(ExitCode::kUsage, "the config has no router role to send load through");
    throw Failure(ExitCode::kUsage, fmt::format("--router {}: no router role of that name", name));
}

struct Snapshot {
    std::string unavailable;
    std::vector<health::Sample> samples;
};

Snapshot scrape(health::HttpProber& prober, const std::string& url) {
    const auto answer = prober.get(url, kMetricsTimeout);
    if (answer.status == 404) return {"/metrics answered 404: the server runs without --enable-metrics", {}};
    if (answer.status != 200)
        return {answer.status == 0 ? "no answer: " + answer.error : fmt::format("HTTP {}", answer.status),
                {}};
    return {"", health::parse_prometheus(answer.body)};
}

std::vector<KvCounters> kv_groups(const Deployment& deployment) {
    std::vector<KvCounters> groups;
    for (const auto& stage : deployment.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        KvCounters group;
        group.role = stage.role;
        group.node = stage.gate.node;
        group.url = util::url_with_path(stage.gate.url, "/metrics");
        groups.push_back(group);
    }
    return groups;
}

// Every group's rank 0 at once; `after` says which side of the load this is.
void read_counters(std::vector<KvCounters>& groups, bool after) {
    health::RealHttpProber prober;
    util::for_each_parallel(groups.size(), util::kEngineFanout, [&](std::size_t i) {
        KvCounters& group = groups[i];
        const Snapshot snapshot = scrape(prober, group.url);
        if (!snapshot.unavailable.empty()) {
            if (group.unavailable.empty()) group.unavailable = snapshot.unavailable;
            return;
        }
        const double transfer = health::sum_of(snapshot.samples, kTransferFailed).value_or(0);
        const double bootstrap = health::sum_of(snapshot.samples, kBootstrapFailed).value_or(0);
        (after ? group.transfer_failed_after : group.transfer_failed_before) = transfer;
        (after ? group.bootstrap_failed_after : group.bootstrap_failed_before) = bootstrap;
        if (after) {
            group.transfer_speed_gb_s = health::max_of(snapshot.samples, "sglang:kv_transfer_speed_gb_s");
            group.transfer_latency_ms = health::max_of(snapshot.samples, "sglang:kv_transfer_latency_ms");
        }
    });
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

int default_requests(int concurrency) {
    return std::max(10, 4 * concurrency);
}

void judge(BenchReport& report) {
    for (const auto& row : report.rows) {
        for (const auto& level : row.levels) {
            const auto& stats = level.stats;
            if (stats.failed == 0) continue;
            const auto& top = stats.errors.front();
            report.problems.push_back(fmt::format(
                "{} at {}: {} of {} requests failed; {}× {}{}", row.row.name,
                level.rate ? fmt::format("rate {}/s", *level.rate)
                           : fmt::format("concurrency {}", level.concurrency),
                stats.failed, stats.failed + stats.ok, top.count, top.error,
                stats.errors.size() > 1 ? fmt::format(" (and {} other errors)", stats.errors.size() - 1)
                                        : ""));
        }
    }
    if (!report.spec.soak) return;
    for (const auto& group : report.kv) {
        if (!group.unavailable.empty()) continue;
        if (group.transfer_failed_increase() > 0)
            report.problems.push_back(fmt::format("{} ({}): {} rose by {} ({} -> {})", group.role, group.node,
                                                  kTransferFailed, group.transfer_failed_increase(),
                                                  group.transfer_failed_before, group.transfer_failed_after));
        if (group.bootstrap_failed_increase() > 0)
            report.problems.push_back(fmt::format("{} ({}): {} rose by {} ({} -> {})", group.role, group.node,
                                                  kBootstrapFailed, group.bootstrap_failed_increase(),
                                                  group.bootstrap_failed_before,
                                                  group.bootstrap_failed_after));
    }
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
    const plan::Stage& router = pick_router(deployment.plan, spec.router);
    BenchReport report;
    report.cluster = deployment.plan.cluster;
    report.config = deployment.plan.fingerprint;
    report.version = PDCTL_VERSION;
    report.started =
        fmt::format("{:%Y-%m-%dT%H:%M:%S}Z",
                    fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
    report.router_role = router.role;
    report.url = util::url_with_path(router.gate.url, "/generate");
    report.spec = spec;
    for (const auto& stage : deployment.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        const BenchGroup group = bench_group(deployment.cluster, stage);
        (group.mode == "prefill" ? report.prefill_gpus : report.decode_gpus) += group.gpus;
        report.groups.push_back(group);
    }
    report.kv = kv_groups(deployment);
    read_counters(report.kv, false);

    const int gpus = report.prefill_gpus + report.decode_gpus;
    for (const auto& row : spec.rows) {
        BenchRowResult result{row, {}};
        for (const int concurrency : spec.concurrency) {
            load::LoadSpec load;
            load.url = report.url;
            load.input_tokens = row.input_tokens;
            load.output_tokens = row.output_tokens;
            load.concurrency = concurrency;
            load.rate = spec.rate;
            load.duration = spec.duration;
            load.requests = spec.requests > 0 || spec.duration.count() > 0 ? spec.requests
                                                                           : default_requests(concurrency);
            load.warmup = spec.warmup;
            load.timeout = spec.timeout;
            load.seed = spec.seed;
            load.cancelled = [] { return engine::interrupted(); };
            BenchProgress where{&row, concurrency, spec.rate, {}};
            const auto ran = load::run_load(load, [&](const load::LoadProgress& now) {
                if (!progress) return;
                where.load = now;
                progress(where);
            });
            BenchLevel level;
            level.concurrency = concurrency;
            level.rate = spec.rate;
            level.stats = load::summarize(ran.records, ran.duration_s, gpus);
            level.runs = {level.stats};
            level.records = ran.records;
            level.cancelled = ran.cancelled;
            result.levels.push_back(std::move(level));
            if (ran.cancelled) break;
        }
        report.rows.push_back(std::move(result));
        if (engine::interrupted()) break;
    }
    report.cancelled = engine::interrupted();
    read_counters(report.kv, true);
    judge(report);
    if (report.cancelled) report.problems.push_back("interrupted: the numbers cover what finished");
    return report;
}

}  // namespace pdctl::ops

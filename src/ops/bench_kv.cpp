#include "pdctl/ops/bench_kv.hpp"

#include <fmt/format.h>

#include "pdctl/health/prometheus.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

constexpr auto kMetricsTimeout = std::chrono::seconds(10);
constexpr const char* kSpeedMetric = "sglang:kv_transfer_speed_gb_s";
constexpr const char* kLatencyMetric = "sglang:kv_transfer_latency_ms";

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

// What a counter rose by from `last` to `now`; a lower value means it began again at 0.
double rise(double last, double now, int& resets) {
    if (now >= last) return now - last;
    ++resets;
    return now;
}

void read_one(health::HttpProber& prober, KvCounters& group, KvRead phase) {
    const Snapshot snapshot = scrape(prober, group.url);
    if (!snapshot.unavailable.empty()) {
        // A read that fails in the middle loses nothing the next one does not see; the first and the
        // last bound the load, so without them the group is not verified.
        if (phase != KvRead::kDuring && group.unavailable.empty()) group.unavailable = snapshot.unavailable;
        return;
    }
    const auto& samples = snapshot.samples;
    const double transfer = health::sum_of(samples, kTransferFailedCounter).value_or(0);
    const double bootstrap = health::sum_of(samples, kBootstrapFailedCounter).value_or(0);
    const double speed_sum = health::sum_of(samples, std::string(kSpeedMetric) + "_sum").value_or(0);
    const double speed_count = health::sum_of(samples, std::string(kSpeedMetric) + "_count").value_or(0);
    const double latency_sum = health::sum_of(samples, std::string(kLatencyMetric) + "_sum").value_or(0);
    const double latency_count = health::sum_of(samples, std::string(kLatencyMetric) + "_count").value_or(0);
    if (phase == KvRead::kFirst || !group.read_once) {
        group.transfer_failed_before = group.transfer_failed_after = transfer;
        group.bootstrap_failed_before = group.bootstrap_failed_after = bootstrap;
        group.speed_sum_before = speed_sum;
        group.speed_count_before = speed_count;
        group.latency_sum_before = latency_sum;
        group.latency_count_before = latency_count;
        group.read_once = true;
        return;
    }
    group.transfer_failed_rise += rise(group.transfer_failed_after, transfer, group.resets);
    group.bootstrap_failed_rise += rise(group.bootstrap_failed_after, bootstrap, group.resets);
    group.transfer_failed_after = transfer;
    group.bootstrap_failed_after = bootstrap;
    if (phase != KvRead::kLast) return;
    // Histograms: the mean of the transfers during the load (unless a reset lost the start of it).
    if (speed_count > group.speed_count_before && group.resets == 0)
        group.transfer_speed_gb_s =
            (speed_sum - group.speed_sum_before) / (speed_count - group.speed_count_before);
    else
        group.transfer_speed_gb_s = health::max_of(samples, kSpeedMetric);
    if (latency_count > group.latency_count_before && group.resets == 0)
        group.transfer_latency_ms =
            (latency_sum - group.latency_sum_before) / (latency_count - group.latency_count_before);
    else
        group.transfer_latency_ms = health::max_of(samples, kLatencyMetric);
}

}  // namespace

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

void read_kv_counters(health::HttpProber& prober, std::vector<KvCounters>& groups, KvRead phase) {
    util::for_each_parallel(groups.size(), util::kEngineFanout,
                            [&](std::size_t i) { read_one(prober, groups[i], phase); });
}

KvWatch::KvWatch(health::HttpProber& prober, std::vector<KvCounters>& groups, std::chrono::milliseconds every)
    : thread_([this, &prober, &groups, every] {
          std::unique_lock lock(mutex_);
          // Waits `every` between reads; the destructor's notify ends the wait at once.
          while (!wake_.wait_for(lock, every, [this] { return stop_; })) {
              lock.unlock();
              read_kv_counters(prober, groups, KvRead::kDuring);
              lock.lock();
          }
      }) {}

KvWatch::~KvWatch() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void judge_kv(const std::vector<KvCounters>& groups, bool allow_unverified,
              std::vector<std::string>& problems, std::vector<std::string>& notes) {
    for (const auto& group : groups) {
        if (!group.unavailable.empty()) {
            std::string line =
                fmt::format("{} ({}): KV counters unverified: {}", group.role, group.node, group.unavailable);
            if (allow_unverified)
                notes.push_back(line + " (allowed by --allow-unverified)");
            else
                problems.push_back(line +
                                   "; no failure counter can pass unread (--allow-unverified judges "
                                   "by the requests alone)");
            continue;
        }
        const std::string reset =
            group.resets > 0
                ? fmt::format(" (its counters began again {} time(s): the server restarted)", group.resets)
                : "";
        if (group.transfer_failed_rise > 0)
            problems.push_back(fmt::format("{} ({}): {} rose by {} ({} -> {}){}", group.role, group.node,
                                           kTransferFailedCounter, group.transfer_failed_rise,
                                           group.transfer_failed_before, group.transfer_failed_after, reset));
        if (group.bootstrap_failed_rise > 0)
            problems.push_back(fmt::format("{} ({}): {} rose by {} ({} -> {}){}", group.role, group.node,
                                           kBootstrapFailedCounter, group.bootstrap_failed_rise,
                                           group.bootstrap_failed_before, group.bootstrap_failed_after,
                                           reset));
        if (group.resets > 0 && group.transfer_failed_rise == 0 && group.bootstrap_failed_rise == 0)
            notes.push_back(
                fmt::format("{} ({}): its counters began again {} time(s) during the load: the server "
                            "restarted",
                            group.role, group.node, group.resets));
    }
}

}  // namespace pdctl::ops

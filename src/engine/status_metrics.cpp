#include "status_metrics.hpp"

#include <fmt/format.h>

#include <span>

#include "pdctl/health/prometheus.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::engine {
namespace {

enum class Combine { kSum, kMax };

struct Watched {
    const char* name;
    Combine combine;
};

// SGLang exports one series per (tp, pp, dp) rank that reports: requests and throughput add up,
// the KV usage is the fullest rank's.
constexpr Watched kSglang[] = {
    {"sglang:num_running_reqs", Combine::kSum},
    {"sglang:num_queue_reqs", Combine::kSum},
    {"sglang:token_usage", Combine::kMax},
    {"sglang:gen_throughput", Combine::kSum},
    {"sglang:num_prefill_inflight_queue_reqs", Combine::kSum},
    {"sglang:num_decode_transfer_queue_reqs", Combine::kSum},
    {"sglang:num_bootstrap_failed_reqs_total", Combine::kSum},
    {"sglang:num_transfer_failed_reqs_total", Combine::kSum},
    {"sglang:num_requests_total", Combine::kSum},
};

constexpr Watched kMaster[] = {
    {"master_key_count", Combine::kSum},
    {"master_allocated_bytes", Combine::kSum},
    {"master_total_capacity_bytes", Combine::kSum},
    {"master_active_clients", Combine::kSum},
};

}  // namespace

std::optional<double> RoleMetrics::find(const std::string& name) const {
    for (const auto& [key, value] : values)
        if (key == name) return value;
    return std::nullopt;
}

std::optional<std::string> metrics_url(const plan::Stage& stage) {
    // The gate of both kinds is an HTTP check on the port that also serves /metrics: SGLang's API
    // port, the master's metrics port.
    if (stage.gate.url.empty()) return std::nullopt;
    if (stage.kind == config::RoleKind::Sglang || stage.kind == config::RoleKind::MooncakeMaster)
        return util::url_with_path(stage.gate.url, "/metrics");
    return std::nullopt;
}

RoleMetrics scrape_metrics(const plan::Stage& stage, const std::string& url, health::HttpProber& prober) {
    RoleMetrics metrics;
    metrics.url = url;
    const auto answer = prober.get(url, std::chrono::seconds(5));
    if (answer.status == 0) {
        metrics.error = answer.error.empty() ? "no answer" : answer.error;
        return metrics;
    }
    if (answer.status != 200) {
        metrics.error = fmt::format("HTTP {}", answer.status);
        if (answer.status == 404 && stage.kind == config::RoleKind::Sglang)
            metrics.error +=
                ": SGLang serves /metrics only with --enable-metrics (add it to the role's args)";
        return metrics;
    }
    const auto samples = health::parse_prometheus(answer.body);
    const auto watched = stage.kind == config::RoleKind::Sglang ? std::span<const Watched>(kSglang)
                                                                : std::span<const Watched>(kMaster);
    for (const auto& metric : watched) {
        const auto value = metric.combine == Combine::kSum ? health::sum_of(samples, metric.name)
                                                           : health::max_of(samples, metric.name);
        if (value) metrics.values.emplace_back(metric.name, *value);
    }
    if (metrics.values.empty()) metrics.error = "none of the watched metrics on the page";
    return metrics;
}

}  // namespace pdctl::engine

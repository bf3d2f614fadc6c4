#pragma once
// The canary's own latency against the groups beside it that still run the old config, over the same
// load at the same time (as Kayenta compares a canary with a baseline cluster): each group's rank-0
// histograms sglang:time_to_first_token_seconds and sglang:inter_token_latency_seconds, read before and
// after the load, their mean over it. The router spreads the load over every group, so a canary half as
// fast moves the whole router's medians by little; its own servers' numbers show it whole.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/health/http_prober.hpp"
#include "pdctl/ops/deployment.hpp"

namespace pdctl::ops {

struct LatencyReading {
    std::string role;
    std::string mode;  // prefill | decode
    std::string url;   // rank 0's /metrics
    std::string error;
    double ttft_sum = 0, ttft_count = 0, itl_sum = 0, itl_count = 0;
};

// Every prefill and decode group's rank-0 /metrics, read at once.
std::vector<LatencyReading> read_latencies(const Deployment& deployment);

struct LatencyComparison {
    std::string metric;  // "ITL mean" | "TTFT mean"
    double canary_ms = 0;
    double others_ms = 0;  // over every group of the canary's mode that was not replaced
    std::vector<std::string> others;
    double worse_by = 0;  // fraction
    bool regressed = false;
};

// The canary (`canary`, its mode's metric: ITL for a decode, TTFT for a prefill) against the other
// groups of its mode, from two readings around the load; the canary restarted after the first, so only
// its second counts. Regressed: worse by more than `max_regress` and by more than 1 ms (below that,
// a host's scheduling noise). Nothing when a side saw no requests or could not be read (`why` says
// so). Pure.
std::optional<LatencyComparison> compare_canary(const std::vector<LatencyReading>& before,
                                                const std::vector<LatencyReading>& after,
                                                const std::string& canary,
                                                const std::vector<std::string>& replaced, double max_regress,
                                                std::string& why);

}  // namespace pdctl::ops

#pragma once
// Service-level objectives of a bench (`--slo ttft=2s,itl=50ms,e2e=30s`): which requests met every
// objective, and the goodput a level delivered — requests a second that met them all — as vLLM's
// benchmark reports it. A failed request meets none. Pure.

#include <optional>
#include <vector>

#include "pdctl/load/request_record.hpp"

namespace pdctl::load {

struct Slo {
    std::optional<double> ttft_s;  // request sent -> first token
    std::optional<double> itl_s;   // the 99th percentile of the request's own inter-token gaps
    std::optional<double> tpot_s;  // the request's mean decode step, (e2e - TTFT) / (tokens - 1)
    std::optional<double> e2e_s;   // request sent -> last token
    bool empty() const { return !ttft_s && !itl_s && !tpot_s && !e2e_s; }
};

// The share of requests that must meet the SLO for a level's goodput to hold (a saturation search's
// test): a deployment that meets it for nine requests in ten is serving; below that it is queueing.
inline constexpr double kSloAttainmentHolds = 0.90;

bool meets(const Slo& slo, const RequestRecord& record);

struct Goodput {
    int met = 0;
    int requests = 0;           // every measured request, failed ones too
    double attainment = 0;      // met / requests
    double requests_per_s = 0;  // met / the level's duration
    bool holds() const { return requests > 0 && attainment >= kSloAttainmentHolds; }
};

Goodput goodput(const Slo& slo, const std::vector<RequestRecord>& records, double duration_s);

}  // namespace pdctl::load

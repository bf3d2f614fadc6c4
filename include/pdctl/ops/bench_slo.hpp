#pragma once
// `--slo ttft=2s,itl=50ms,tpot=40ms,e2e=30s`: the objectives a bench judges goodput by. Pure.

#include <string>

#include "pdctl/load/slo.hpp"

namespace pdctl::ops {

// Failure (usage) naming the part that is wrong and the accepted keys and forms.
load::Slo parse_slo(const std::string& text);

// "TTFT ≤ 2s, ITL p99 ≤ 50ms": what a report prints beside the goodput.
std::string describe_slo(const load::Slo& slo);

}  // namespace pdctl::ops

#pragma once
// `pdctl bench --save-requests FILE.jsonl`: every measured request of a run as one JSON line — the raw
// data an operator's own analysis needs, beside the summaries the report gives. Pure.

#include <string>

#include "pdctl/ops/bench.hpp"

namespace pdctl::ops {

// One line per measured request, in send order within each level; fields in docs/bench.md.
std::string request_lines(const BenchReport& report);

}  // namespace pdctl::ops

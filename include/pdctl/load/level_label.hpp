#pragma once
// The name of a load level, the same in the bench's output, its journal keys, charts and sweeps.

#include <optional>
#include <string>

namespace pdctl::load {

// "c=4" for a closed loop of 4 streams; "8/s" (or "0.5/s") for Poisson arrivals at that rate, whatever
// the cap on concurrency beside it.
std::string level_label(int concurrency, std::optional<double> rate);

}  // namespace pdctl::load

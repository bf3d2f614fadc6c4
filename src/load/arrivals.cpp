#include "pdctl/load/arrivals.hpp"

#include <cmath>

#include "splitmix.hpp"

namespace pdctl::load {

PoissonArrivals::PoissonArrivals(double rate_per_s, std::uint64_t seed)
    : rate_(rate_per_s), state_(seed ^ 0x2545f4914f6cdd1dULL) {}

double PoissonArrivals::next_gap_s() {
    if (!(rate_ > 0) || std::isinf(rate_))
        return 0;  // inf: all at once, as bench_serving's --request-rate inf
    // splitmix64 -> a uniform in (0, 1] -> an exponential gap.
    const std::uint64_t z = splitmix64(state_);
    const double uniform = (static_cast<double>(z >> 11) + 1.0) / 9007199254740992.0;  // (0, 1]
    return -std::log(uniform) / rate_;
}

}  // namespace pdctl::load

#include "pdctl/load/arrivals.hpp"

#include <cmath>

#include "pdctl/util/splitmix.hpp"

namespace pdctl::load {

PoissonArrivals::PoissonArrivals(double rate_per_s, std::uint64_t seed, double burstiness)
    : rate_(rate_per_s), burstiness_(burstiness), state_(seed ^ 0x2545f4914f6cdd1dULL) {}

double PoissonArrivals::uniform() {
    const std::uint64_t z = util::splitmix64(state_);
    return (static_cast<double>(z >> 11) + 1.0) / 9007199254740992.0;  // (0, 1]
}

double PoissonArrivals::normal() {
    // Box-Muller; the second value is dropped: gaps are few, simplicity wins.
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * M_PI * uniform());
}

// Marsaglia and Tsang's method; a shape below 1 is drawn at shape + 1 and scaled by U^(1/shape).
double PoissonArrivals::gamma(double shape) {
    if (shape < 1) return gamma(shape + 1) * std::pow(uniform(), 1.0 / shape);
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x = 0;
        double v = 0;
        do {
            x = normal();
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const double u = uniform();
        if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
}

double PoissonArrivals::next_gap_s() {
    if (!(rate_ > 0) || std::isinf(rate_))
        return 0;  // inf: all at once, as bench_serving's --request-rate inf
    // Burstiness 1: the exponential gap, drawn directly (the runs before burstiness existed repeat).
    if (burstiness_ == 1.0) return -std::log(uniform()) / rate_;
    // Gamma with shape k and scale 1/(rate k): mean 1/rate whatever k.
    return gamma(burstiness_) / (rate_ * burstiness_);
}

}  // namespace pdctl::load

#pragma once
// Poisson arrivals: the gaps between requests are exponential with mean 1/rate, drawn from a seeded
// generator so a run can be repeated exactly. Pure.

#include <cstdint>

namespace pdctl::load {

class PoissonArrivals {
  public:
    PoissonArrivals(double rate_per_s, std::uint64_t seed);
    // Seconds from the previous arrival to the next.
    double next_gap_s();

  private:
    double rate_;
    std::uint64_t state_;
};

}  // namespace pdctl::load

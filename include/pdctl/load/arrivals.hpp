#pragma once
// Arrival times of an open-loop level: the gaps between requests are gamma-distributed with mean
// 1/rate, drawn from a seeded generator so a run can be repeated exactly. Burstiness 1 is a Poisson
// process (exponential gaps); below 1 the requests come in bursts, above 1 more evenly — the shape
// factor of vLLM's and sglang.bench_serving's --burstiness. Pure.

#include <cstdint>

namespace pdctl::load {

class PoissonArrivals {
  public:
    PoissonArrivals(double rate_per_s, std::uint64_t seed, double burstiness = 1.0);
    // Seconds from the previous arrival to the next.
    double next_gap_s();

  private:
    double uniform();  // in (0, 1]
    double normal();
    double gamma(double shape);  // scale 1

    double rate_;
    double burstiness_;
    std::uint64_t state_;
};

}  // namespace pdctl::load

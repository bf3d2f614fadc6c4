#pragma once
// `--rate ramp`: the highest request rate whose goodput holds (load::Slo: at least nine requests in
// ten meet every objective) — the deployment's saturation point. The rate doubles from the start
// while it holds; the first that does not is bracketed by halving the gap (geometric means) a few
// times. If the start does not hold, the rate halves a few times instead. Pure: the bench runs each
// rate it is asked for and tells whether it held.

#include <optional>
#include <vector>

namespace pdctl::ops {

class RateSearch {
  public:
    struct Step {
        double rate = 0;
        bool held = false;
    };

    explicit RateSearch(double start = 1.0, double ceiling = 4096, int refinements = 2);

    // The next rate to run; nullopt when the search is over.
    std::optional<double> next() const;
    void record(double rate, bool held);

    // The highest rate that held; nullopt when none did.
    std::optional<double> saturation() const;
    // The lowest rate that did not hold, above the saturation point; nullopt when every rate held
    // (the ceiling was reached) — then the saturation point is at least the ceiling's.
    std::optional<double> first_failing() const;
    const std::vector<Step>& steps() const { return steps_; }

  private:
    double start_;
    double ceiling_;
    int refinements_;
    std::vector<Step> steps_;
};

}  // namespace pdctl::ops

#include "pdctl/ops/rate_search.hpp"

#include <cmath>

namespace pdctl::ops {
namespace {

// The lowest rate the search goes down to when even the start does not hold: 1/8 of it.
constexpr int kHalvings = 3;

// A rate an operator can read and type again: 5.66, not 5.656854.
double three_digits(double rate) {
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(rate)));
    return std::round(rate * scale) / scale;
}

}  // namespace

RateSearch::RateSearch(double start, double ceiling, int refinements)
    : start_(start), ceiling_(ceiling), refinements_(refinements) {}

std::optional<double> RateSearch::saturation() const {
    std::optional<double> best;
    for (const auto& step : steps_)
        if (step.held && (!best || step.rate > *best)) best = step.rate;
    return best;
}

std::optional<double> RateSearch::first_failing() const {
    const auto held = saturation();
    std::optional<double> lowest;
    for (const auto& step : steps_)
        if (!step.held && (!held || step.rate > *held) && (!lowest || step.rate < *lowest))
            lowest = step.rate;
    return lowest;
}

std::optional<double> RateSearch::next() const {
    if (steps_.empty()) return start_;
    const auto held = saturation();
    const auto failing = first_failing();
    if (!held) {
        // Nothing held yet: go down from the start.
        const double lowest = steps_.back().rate;
        if (lowest <= start_ / std::pow(2.0, kHalvings)) return std::nullopt;
        return lowest / 2;
    }
    if (!failing) {
        if (*held >= ceiling_) return std::nullopt;
        return std::min(*held * 2, ceiling_);
    }
    // Bracketed: refine between the two, a fixed number of times after the bracket was found.
    int refined = 0;
    bool seen_held = false;
    bool seen_failing = false;
    for (const auto& step : steps_) {
        if (seen_held && seen_failing) ++refined;
        (step.held ? seen_held : seen_failing) = true;
    }
    if (refined >= refinements_) return std::nullopt;
    const double middle = three_digits(std::sqrt(*held * *failing));
    // A bracket narrower than 10 % is as precise as one run of noisy goodput can tell.
    if (*failing / *held < 1.1) return std::nullopt;
    return middle;
}

void RateSearch::record(double rate, bool held) {
    steps_.push_back({rate, held});
}

}  // namespace pdctl::ops

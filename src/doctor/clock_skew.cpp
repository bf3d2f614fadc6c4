// SYS003: clock skew between nodes. Each node's clock is sampled against this machine's with the round
// trip around `date +%s.%N`; the reference is the median node, so one wrong clock is blamed on that
// node rather than on this machine or on everyone. The round trip bounds the error: a node is reported
// only when its offset exceeds the threshold by more than both samples' uncertainty. Skew breaks the
// order of logs and journal entries across nodes, and `logs --since` on the nodes.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "checks.hpp"

namespace pdctl::doctor::detail {

int check_clock_skew(const CrossNodeInput& input, lint::FindingSink& sink) {
    std::vector<std::size_t> sampled;
    for (std::size_t i = 0; i < input.clocks.size(); ++i)
        if (input.clocks[i] && input.clocks[i]->taken) sampled.push_back(i);
    if (sampled.size() < 2) return 0;
    auto by_offset = sampled;
    std::sort(by_offset.begin(), by_offset.end(), [&](std::size_t a, std::size_t b) {
        return input.clocks[a]->offset_seconds < input.clocks[b]->offset_seconds;
    });
    const auto& median = *input.clocks[by_offset[by_offset.size() / 2]];
    for (const auto i : sampled) {
        const auto& clock = *input.clocks[i];
        const double skew = clock.offset_seconds - median.offset_seconds;
        const double certain = std::abs(skew) - clock.uncertainty_seconds - median.uncertainty_seconds;
        if (certain <= input.options.clock_warn_seconds) continue;
        const bool error = certain > input.options.clock_error_seconds;
        auto& finding =
            sink.add(error ? lint::Severity::Error : lint::Severity::Warn, "",
                     fmt::format("the clock of {} is {:.1f} s {} the other nodes' (median; ±{:.2f} s)",
                                 input.needs[i]->node.name, std::abs(skew), skew > 0 ? "ahead of" : "behind",
                                 clock.uncertainty_seconds + median.uncertainty_seconds),
                     "sync the clocks (chrony or systemd-timesyncd against the same NTP servers; `chronyc "
                     "tracking` on "
                     "the node)");
        finding.node = input.needs[i]->node.name;
    }
    return static_cast<int>(sampled.size());
}

}  // namespace pdctl::doctor::detail

#pragma once
// Which ranks of an SGLang group are making progress, judged from their logs alone. Ranks >= 1 serve
// no HTTP, so a hung rank shows only as a log that went quiet (sglang #12121, #6864). A quiet log is
// normal for a rank that finished its start-up, or that waits at the next collective step for a
// slower member; it is a stall when the rank is the one the others wait for. Pure: `start`'s
// progress and `status` judge with the same rule.

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/runtime/startup_phase.hpp"

namespace pdctl::engine {

struct RankActivity {
    int rank = 0;
    std::string node;
    runtime::Phase phase = runtime::Phase::kStarting;
    std::chrono::milliseconds quiet{0};  // since its log last changed
    bool phase_done = false;             // it logged the end of `phase` (runtime::Classification)
};

enum class RankVerdict {
    kMoving,   // its log moved within the threshold, or its group is serving
    kWaiting,  // quiet, but ahead of a member of its group: it waits for that one at the next step
    kStalled,  // quiet, and no member of its group is behind it: the group waits for this rank
};

std::string_view verdict_id(RankVerdict verdict);  // "moving", "waiting", "stalled"

// One verdict per rank, in the order given. `serving`: the group's rank 0 passes its gate; then no
// rank is stalled. A rank is quiet once its log has not moved for longer than `threshold`.
std::vector<RankVerdict> judge_ranks(const std::vector<RankActivity>& ranks,
                                     std::chrono::milliseconds threshold, bool serving);

// For a stalled rank: "stalled in KV cache: its log has been quiet for 6m12s while ranks 0,1,3 moved
// past it". `index` is its place in `ranks`.
std::string describe_stall(const std::vector<RankActivity>& ranks, std::size_t index);

}  // namespace pdctl::engine

#pragma once
// Which request of a level goes next when requests may wait for others (a conversation's turn for the
// previous turn, PlannedRequest::after): the lowest-index request whose predecessor has finished. So a
// closed loop fills a free slot with the next ready request in index order (another conversation's
// turn while this one's previous turn is still running), and with Poisson arrivals a request that
// arrived before its predecessor finished waits for it while later arrivals go. Pure.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "pdctl/load/planned_request.hpp"

namespace pdctl::load {

struct QueuedRequest {
    std::uint64_t n = 0;
    PlannedRequest planned;
};

class RequestQueue {
  public:
    // `plan` gives request n (it is asked again for a request that had to wait: only the index of a
    // waiting request is kept, not its body). At most `max_waiting` requests wait at once: past that,
    // no later request is looked at until one of them is released.
    explicit RequestQueue(std::function<PlannedRequest(std::uint64_t)> plan, std::size_t max_waiting = 65536);

    // The lowest-index ready request among those below `end` not handed out yet; nullopt when every
    // one of them is handed out or waiting. Throws std::logic_error for a request that waits for
    // itself or a later one (it could never be sent).
    std::optional<QueuedRequest> next(std::uint64_t end);

    // Request n ended (succeeded or not: it no longer holds anything back).
    void finished(std::uint64_t n);

    // Requests waiting for a predecessor that has not finished.
    std::size_t waiting() const { return waiting_count_; }

  private:
    bool has_finished(long long n) const;

    std::function<PlannedRequest(std::uint64_t)> plan_;
    std::size_t max_waiting_;
    std::uint64_t next_fresh_ = 0;                                           // never looked at from here on
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> waiting_;  // after -> those waiting for it
    std::size_t waiting_count_ = 0;
    std::set<std::uint64_t> released_;  // released from waiting, not handed out yet
    std::vector<bool> finished_;        // by n
};

}  // namespace pdctl::load

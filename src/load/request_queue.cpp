#include "pdctl/load/request_queue.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace pdctl::load {

RequestQueue::RequestQueue(std::function<PlannedRequest(std::uint64_t)> plan, std::size_t max_waiting)
    : plan_(std::move(plan)), max_waiting_(max_waiting) {}

bool RequestQueue::has_finished(long long n) const {
    return n >= 0 && static_cast<std::uint64_t>(n) < finished_.size() &&
           finished_[static_cast<std::size_t>(n)];
}

std::optional<QueuedRequest> RequestQueue::next(std::uint64_t end) {
    // A released request was looked at before every fresh one: it is the lowest index.
    if (!released_.empty() && *released_.begin() < end) {
        const std::uint64_t n = *released_.begin();
        released_.erase(released_.begin());
        return QueuedRequest{n, plan_(n)};
    }
    while (next_fresh_ < end && waiting_count_ < max_waiting_) {
        const std::uint64_t n = next_fresh_++;
        PlannedRequest planned = plan_(n);
        if (planned.after < 0 || has_finished(planned.after)) return QueuedRequest{n, std::move(planned)};
        if (static_cast<std::uint64_t>(planned.after) >= n)
            throw std::logic_error(
                fmt::format("request {} waits for request {}, which comes after it", n, planned.after));
        waiting_[static_cast<std::uint64_t>(planned.after)].push_back(n);
        ++waiting_count_;
    }
    return std::nullopt;
}

void RequestQueue::finished(std::uint64_t n) {
    if (n >= finished_.size()) finished_.resize(static_cast<std::size_t>(n) + 1, false);
    finished_[static_cast<std::size_t>(n)] = true;
    const auto it = waiting_.find(n);
    if (it == waiting_.end()) return;
    for (const std::uint64_t dependent : it->second) released_.insert(dependent);
    waiting_count_ -= it->second.size();
    waiting_.erase(it);
}

}  // namespace pdctl::load

#include "pdctl/load/request_queue.hpp"

#include <gtest/gtest.h>

namespace pdctl::load {
namespace {

// Requests whose `after` is given by `after_of(n)`; the body names the index.
RequestQueue queue_of(std::function<long long(std::uint64_t)> after_of, std::size_t max_waiting = 65536) {
    return RequestQueue(
        [after_of](std::uint64_t n) {
            PlannedRequest planned;
            planned.body = std::to_string(n);
            planned.after = after_of(n);
            return planned;
        },
        max_waiting);
}

std::optional<std::uint64_t> next_index(RequestQueue& queue, std::uint64_t end) {
    auto next = queue.next(end);
    if (!next) return std::nullopt;
    EXPECT_EQ(next->planned.body, std::to_string(next->n));
    return next->n;
}

TEST(RequestQueue, IndependentRequestsGoInOrderUpToTheEnd) {
    auto queue = queue_of([](std::uint64_t) { return -1; });
    EXPECT_EQ(next_index(queue, 2), 0u);
    EXPECT_EQ(next_index(queue, 2), 1u);
    EXPECT_EQ(next_index(queue, 2), std::nullopt);
    EXPECT_EQ(next_index(queue, 3), 2u);
}

TEST(RequestQueue, AWaitingRequestLetsLaterReadyOnesGoAndComesFirstOnceReleased) {
    // Conversations of 3 turns: n = 3c + t - 1, each turn after the previous one.
    auto queue = queue_of([](std::uint64_t n) { return n % 3 == 0 ? -1LL : static_cast<long long>(n - 1); });
    EXPECT_EQ(next_index(queue, 9), 0u);
    EXPECT_EQ(next_index(queue, 9), 3u);  // 1 and 2 wait for 0
    EXPECT_EQ(queue.waiting(), 2u);
    queue.finished(0);
    EXPECT_EQ(next_index(queue, 9), 1u);  // released: lower than any fresh request
    EXPECT_EQ(next_index(queue, 9), 6u);  // 2 waits for 1, 4 for 3
    queue.finished(3);
    queue.finished(1);
    EXPECT_EQ(next_index(queue, 9), 2u);
    EXPECT_EQ(next_index(queue, 9), 4u);
    EXPECT_EQ(next_index(queue, 9), std::nullopt);  // 5 waits for 4, 7 for 6, 8 for 7
    EXPECT_EQ(queue.waiting(), 3u);
}

TEST(RequestQueue, APredecessorThatFinishedBeforeItsDependentWasLookedAtHoldsNothingBack) {
    auto queue = queue_of([](std::uint64_t n) { return n == 0 ? -1LL : static_cast<long long>(n - 1); });
    EXPECT_EQ(next_index(queue, 1), 0u);
    queue.finished(0);
    EXPECT_EQ(next_index(queue, 5), 1u);
}

TEST(RequestQueue, AtMostMaxWaitingAreLookedAhead) {
    auto queue = queue_of([](std::uint64_t n) { return n == 0 ? -1LL : 0LL; }, 2);
    EXPECT_EQ(next_index(queue, 100), 0u);
    EXPECT_EQ(next_index(queue, 100), std::nullopt);
    EXPECT_EQ(queue.waiting(), 2u);
    queue.finished(0);
    EXPECT_EQ(next_index(queue, 100), 1u);
    EXPECT_EQ(next_index(queue, 100), 2u);
    EXPECT_EQ(next_index(queue, 100), 3u);  // 3 onwards find 0 finished
}

TEST(RequestQueue, ARequestWaitingForItselfOrALaterOneIsRefused) {
    auto queue = queue_of([](std::uint64_t n) { return static_cast<long long>(n); });
    EXPECT_THROW(queue.next(5), std::logic_error);
}

}  // namespace
}  // namespace pdctl::load

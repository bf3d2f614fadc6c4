#include "pdctl/util/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace pdctl::util {
namespace {

TEST(ForEachParallel, RunsEveryIndexExactlyOnce) {
    std::vector<std::atomic<int>> seen(100);
    for_each_parallel(seen.size(), 7, [&](std::size_t i) { ++seen[i]; });
    for (const auto& count : seen) EXPECT_EQ(count.load(), 1);
}

TEST(ForEachParallel, NeverRunsMoreTasksAtOnceThanAllowed) {
    std::atomic<int> running{0};
    std::atomic<int> most{0};
    for_each_parallel(40, 3, [&](std::size_t) {
        const int now = ++running;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::yield();
        --running;
    });
    EXPECT_LE(most.load(), 3);
    EXPECT_GE(most.load(), 1);
}

TEST(ForEachParallel, ReallyRunsInParallelUpToTheBound) {
    // Three tasks that each wait for all three to have started: only true parallelism gets through.
    std::mutex mutex;
    std::condition_variable all_started;
    int started = 0;
    bool met = true;
    for_each_parallel(3, 3, [&](std::size_t) {
        std::unique_lock lock(mutex);
        ++started;
        all_started.notify_all();
        met = all_started.wait_for(lock, std::chrono::seconds(10), [&] { return started == 3; }) && met;
    });
    EXPECT_TRUE(met);
}

TEST(ForEachParallel, NothingToDoAndAZeroBoundAreFine) {
    int calls = 0;
    for_each_parallel(0, 4, [&](std::size_t) { ++calls; });
    for_each_parallel(2, 0, [&](std::size_t) { ++calls; });
    EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace pdctl::util

#include "pdctl/util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace pdctl::util {

void for_each_parallel(std::size_t count, std::size_t max_threads,
                       const std::function<void(std::size_t)>& task) {
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (auto i = next++; i < count; i = next++) task(i);
    };
    const auto threads = std::min(count, std::max<std::size_t>(max_threads, 1));
    if (threads <= 1) {
        work();
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& thread : pool) thread.join();
}

}  // namespace pdctl::util

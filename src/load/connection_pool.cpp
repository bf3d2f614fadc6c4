#include "pdctl/load/connection_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace pdctl::load {

long connection_pool_size(const LoadSpec& spec, long open_file_limit) {
    constexpr long kSpare = 16;     // warm-ups and requests whose connection is being closed
    constexpr long kSmallest = 32;  // what a pool never goes below, whatever the limit says
    if (spec.concurrency > 0 || !spec.rate) return std::max<long>(spec.concurrency, 16) + kSpare;
    const double timeout_s = std::chrono::duration<double>(spec.timeout).count();
    const double in_flight = std::ceil(*spec.rate * timeout_s);
    long size = in_flight < 1e9 ? static_cast<long>(in_flight) + kSpare : 1000000000L;
    if (open_file_limit > 0) size = std::min(size, std::max(open_file_limit - kFdsKeptBack, kSmallest));
    return std::max(size, kSmallest);
}

}  // namespace pdctl::load

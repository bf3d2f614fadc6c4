#pragma once
// The bounded fan-out every node-wide verb uses (push, pull, doctor): one task per node, at most
// `max_threads` at a time, each thread taking the next index until none is left.

#include <cstddef>
#include <functional>

namespace pdctl::util {

// Runs task(i) for every i in [0, count) on min(count, max(max_threads, 1)) threads and returns when
// all are done. `task` must not throw (a node's failure belongs in its result, not in an exception).
// One task runs on the calling thread.
void for_each_parallel(std::size_t count, std::size_t max_threads,
                       const std::function<void(std::size_t)>& task);

// The engine's bound (a stage's units, the nodes status inspects): a stage's ranks start together, so it
// is as wide as the largest group pdctl is measured with (64 nodes, docs/benchmarks.md); the SSH
// executor bounds concurrent handshakes on its own.
inline constexpr std::size_t kEngineFanout = 64;

}  // namespace pdctl::util

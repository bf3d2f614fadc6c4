#pragma once
// `pdctl logs --follow`: prints what the selected units' logs gain, until Ctrl-C. Each poll asks every
// unit for the bytes after its cursor (runtime/log_query.hpp), so lines of several units interleave in
// the order they arrive, one poll apart at most.

#include <chrono>
#include <vector>

#include "context.hpp"
#include "pdctl/runtime/log_query.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

struct FollowTarget {
    const plan::Unit* unit = nullptr;
    const config::Node* node = nullptr;
    runtime::RuntimeSpec runtime;
    std::string node_dir;
    std::string prefix;  // "[n3 rank2] " when several units, else ""
};

// Prints the request's lines (with cursors), then follows until SIGINT/SIGTERM. Exit code 0 when
// stopped by Ctrl-C, 3 if a node could not be read at the start.
ExitCode follow_logs(const Context& context, exec::Executor& executor,
                     const std::vector<FollowTarget>& targets, runtime::LogRequest first_read,
                     std::chrono::milliseconds poll_interval = std::chrono::milliseconds(500));

}  // namespace pdctl::cli

#pragma once
// `pdctl logs --follow`'s loop: the request's lines (with cursors), then what each unit's log gains,
// every poll, until SIGINT/SIGTERM.

#include <chrono>
#include <vector>

#include "pdctl/engine/clock.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/ops/logs.hpp"
#include "pdctl/runtime/log_query.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// Exit code 0 when stopped by Ctrl-C, 3 if a node could not be read at the start.
ExitCode follow_logs(exec::Executor& executor, engine::Clock& clock, const std::vector<LogTarget>& targets,
                     runtime::LogRequest first_read, std::chrono::milliseconds poll_interval, LogSink& sink);

}  // namespace pdctl::ops

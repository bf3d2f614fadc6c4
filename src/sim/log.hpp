#pragma once
// Log lines of the simulated programs. pdctl tails these files and matches stage lines with
// regexes, so the prefixes copy the real programs' formats and every line is flushed at once.

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace pdsim {

// SGLang main process (tokenizer manager, uvicorn): "[2025-03-12 08:52:39] msg".
void log_main(std::string_view msg);

// SGLang scheduler process of global TP rank `tp_rank`: "[2025-03-12 08:52:39 TP8] msg".
void log_sched(int tp_rank, std::string_view msg);

// glog, as written by the Mooncake C++ programs: "I0312 08:52:39.123456 4242 master.cpp:0] msg".
// `severity` is one of 'I', 'W', 'E', 'F'.
void log_glog(char severity, std::string_view file, std::string_view msg);

// Writes the pending output under the log lock and ends the process at once, with no destructors
// or atexit handlers: threads blocked in accept()/recv() must not keep a dying process alive.
[[noreturn]] void exit_now(int code);

template <typename... Args>
void log_mainf(fmt::format_string<Args...> format, Args&&... args) {
    log_main(fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void log_schedf(int tp_rank, fmt::format_string<Args...> format, Args&&... args) {
    log_sched(tp_rank, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace pdsim

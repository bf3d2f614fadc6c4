#include "sim/log.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>

#include "sim/stack_frames.hpp"

namespace pdsim {
namespace {

// One lock for every line: several threads log at once (scheduler, HTTP handlers, monitors) and
// a line must never be torn, because pdctl parses them.
std::mutex& log_mutex() {
    static std::mutex mutex;
    return mutex;
}

struct WallTime {
    std::tm local{};
    long micros = 0;
};

WallTime now() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    WallTime clock;
    time_t seconds = tv.tv_sec;
    localtime_r(&seconds, &clock.local);
    clock.micros = static_cast<long>(tv.tv_usec);
    return clock;
}

void write_line(const std::string& line) {
    std::lock_guard lock(log_mutex());
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

std::string sglang_stamp() {
    WallTime clock = now();
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &clock.local);
    return buf;
}

}  // namespace

void log_main(std::string_view msg) {
    write_line(fmt::format("[{}] {}\n", sglang_stamp(), msg));
}

void log_sched(int tp_rank, std::string_view msg) {
    write_line(fmt::format("[{} TP{}] {}\n", sglang_stamp(), tp_rank, msg));
}

void log_glog(char severity, std::string_view file, std::string_view msg) {
    WallTime clock = now();
    char buf[32];
    std::strftime(buf, sizeof buf, "%m%d %H:%M:%S", &clock.local);
    write_line(fmt::format("{}{}.{:06d} {} {}:0] {}\n", severity, buf, clock.micros, getpid(), file, msg));
}

void exit_now(int code) {
    // Exit while holding the lock: no other thread can start a line after the final one.
    log_mutex().lock();
    forget_step();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
}

}  // namespace pdsim

#pragma once
// Whether a unit of the process runtime has ended: its exit file is written (the program returned)
// and its supervising sh, the group's leader, is gone or a zombie. The sh writes the exit file as its
// last step, so for a moment after the file appears the unit is still running: a start then answers
// "already running" and an inspect says running, as they should.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace pdctl::testing {

inline bool process_unit_ended(const std::filesystem::path& state_dir, const std::string& unit) {
    if (!std::filesystem::exists(state_dir / (unit + ".exit"))) return false;
    std::string pid;
    std::ifstream(state_dir / (unit + ".pid")) >> pid;
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (pid.empty() || !std::getline(stat, line)) return true;
    const auto comm_end = line.rfind(") ");  // the state follows "(comm) ", and comm may hold ") "
    return comm_end != std::string::npos && line.compare(comm_end + 2, 1, "Z") == 0;
}

// Polls process_unit_ended every 10 ms until it holds or `limit` passes; whether it holds.
inline bool process_unit_ends_within(const std::filesystem::path& state_dir, const std::string& unit,
                                     std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!process_unit_ended(state_dir, unit)) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace pdctl::testing

#pragma once
// For integration tests that must act on a running pdctl: find its pid, and run it with its output
// going to a file that the test can watch while it runs (the harness returns output only at the end).

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

// The parent process of `pid` (the 4th field of /proc/PID/stat), or 0.
inline int parent_pid(const std::string& pid) {
    const std::string stat = read_text("/proc/" + pid + "/stat");
    const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) return 0;
    std::istringstream fields(stat.substr(close + 1));
    std::string state;
    int ppid = 0;
    fields >> state >> ppid;
    return state == "Z" ? -1 : ppid;  // -1: a zombie, which no signal reaches
}

// The pid of the pdctl process whose command line names `config` (and `verb`, if given), or 0.
// A child pdctl forked to run a command shows pdctl's command line until it execs, and after the pids
// wrapped (pid_max is 32768 here) it may list before its parent: a signal sent to it would be lost at
// its exec. So the pdctl whose parent is not such a pdctl is the one.
inline int find_pdctl_pid(const std::string& config, const std::string& verb = "") {
    std::vector<std::pair<int, int>> matches;  // pid, parent
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = read_text(entry.path() / "cmdline");
        if (cmdline.rfind(pdctl::testing::pdctl_binary(), 0) != 0 ||
            cmdline.find(config) == std::string::npos)
            continue;
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        if (!verb.empty() && cmdline.find(" " + verb) == std::string::npos) continue;
        const int parent = parent_pid(name);
        if (parent >= 0) matches.emplace_back(std::stoi(name), parent);
    }
    for (const auto& [pid, parent] : matches) {
        const bool forked_child =
            std::any_of(matches.begin(), matches.end(),
                        [parent = parent](const auto& other) { return other.first == parent; });
        if (!forked_child) return pid;
    }
    return 0;
}

// Polls `condition` every 20 ms until it holds or `limit` passes; never a fixed sleep.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return condition();
}

// Runs pdctl with stdout and stderr appended to `output` (a file), in the background.
inline std::future<exec::CommandResult> run_pdctl_to_file(const SimCluster& cluster,
                                                          const std::filesystem::path& output,
                                                          std::vector<std::string> args) {
    exec::Command command;
    command.argv = {"sh",
                    "-c",
                    "out=$1; shift; exec \"$@\" >> \"$out\" 2>&1",
                    "pdctl-to-file",
                    output.string(),
                    pdctl::testing::pdctl_binary(),
                    "-c",
                    cluster.config().string()};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.timeout = std::chrono::seconds(120);
    return std::async(std::launch::async, [command] {
        exec::LocalExecutor executor;
        return executor.run({"local", "127.0.0.1", {}, {}, {}}, command);
    });
}

// user@host as pdctl records it.
inline std::string operator_who() {
    const passwd* entry = ::getpwuid(::geteuid());
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(entry ? entry->pw_name : "") + "@" + host;
}

}  // namespace pdctl::testing

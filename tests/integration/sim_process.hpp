#pragma once
// Test helpers for running real pdsim processes: start one in its own process group with its
// output in a log file, poll for conditions with a deadline, and kill the whole group at the end.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "unit/support/build_paths.hpp"

extern char** environ;

namespace pdsim_test {

using namespace std::chrono_literals;
using Millis = std::chrono::milliseconds;

// Polls `condition` every 20 ms until it holds (true) or `timeout` has passed (false). The only
// way these tests wait: never a bare sleep standing in for synchronisation.
inline bool wait_until(const std::function<bool()>& condition, Millis timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (condition()) {
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(20ms);
    }
}

using EnvList = std::vector<std::pair<std::string, std::string>>;

class SimProcess {
  public:
    // Starts `pdsim args...`. The child gets the parent's environment minus any PDSIM_* variable,
    // plus `env`, so knobs never leak between tests.
    SimProcess(std::string name, const std::vector<std::string>& args, const EnvList& env = {})
        : name_(std::move(name)) {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        log_path_ = ::testing::TempDir() + "pdsim-" + (info != nullptr ? info->name() : "test") + "-" +
                    name_ + "-" + std::to_string(::getpid()) + ".log";

        // Everything the child needs is built before fork(): after it, only async-signal-safe calls.
        std::vector<std::string> argv_strings = {pdctl::testing::pdsim_binary()};
        argv_strings.insert(argv_strings.end(), args.begin(), args.end());
        std::vector<std::string> env_strings;
        for (char** e = environ; *e != nullptr; ++e) {
            if (std::strncmp(*e, "PDSIM_", 6) != 0) {
                env_strings.emplace_back(*e);
            }
        }
        for (const auto& [key, value] : env) {
            env_strings.push_back(key + "=" + value);
        }
        std::vector<char*> argv = pointers(argv_strings);
        std::vector<char*> envp = pointers(env_strings);

        pid_ = ::fork();
        if (pid_ == 0) {
            ::setpgid(0, 0);
            int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                ::dup2(fd, STDOUT_FILENO);
                ::dup2(fd, STDERR_FILENO);
            }
            ::execve(argv[0], argv.data(), envp.data());
            _exit(127);
        }
        if (pid_ > 0) {
            ::setpgid(pid_, pid_);  // also here: no race with kill(-pid) in the destructor
        }
    }

    SimProcess(const SimProcess&) = delete;
    SimProcess& operator=(const SimProcess&) = delete;

    ~SimProcess() {
        if (pid_ > 0 && !status_) {
            ::kill(-pid_, SIGKILL);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        if (::testing::Test::HasFailure()) {
            std::cerr << "----- pdsim log of " << name_ << " (" << log_path_ << ") -----\n"
                      << log() << "-----\n";
        } else {
            ::unlink(log_path_.c_str());
        }
    }

    pid_t pid() const { return pid_; }
    const std::string& log_path() const { return log_path_; }

    bool running() { return !exit_code().has_value(); }

    // The exit status once the process has ended (128 + signal number if killed by a signal).
    std::optional<int> exit_code() {
        if (!status_ && pid_ > 0) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
        }
        return status_;
    }

    std::optional<int> wait_exit(Millis timeout) {
        wait_until([this] { return exit_code().has_value(); }, timeout);
        return exit_code();
    }

    void signal(int signo) const { ::kill(pid_, signo); }

    std::string log() const {
        std::ifstream in(log_path_);
        std::stringstream content;
        content << in.rdbuf();
        return content.str();
    }

    bool log_contains(std::string_view text) const { return log().find(text) != std::string::npos; }

    // Position of `text` in the log, or npos; for checking the order of lines.
    std::size_t log_find(std::string_view text) const { return log().find(text); }

    bool wait_for_log(std::string_view text, Millis timeout) const {
        return wait_until([&] { return log_contains(text); }, timeout);
    }

  private:
    static std::vector<char*> pointers(std::vector<std::string>& strings) {
        std::vector<char*> result;
        for (auto& s : strings) {
            result.push_back(s.data());
        }
        result.push_back(nullptr);
        return result;
    }

    std::string name_;
    std::string log_path_;
    pid_t pid_ = -1;
    std::optional<int> status_;
};

}  // namespace pdsim_test

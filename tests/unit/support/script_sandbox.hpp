#pragma once
// Runs pdctl's fixed node scripts for real on this machine (through LocalExecutor, i.e. `sh -c` as
// sshd would) inside a fresh temporary directory, so builders and parsers are tested against the
// shell, not against expectations about it.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "pdctl/exec/local_executor.hpp"

namespace pdctl::testing {

// The absolute path of a program found on this process's PATH, "" when there is none.
inline std::filesystem::path which(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const auto candidate = std::filesystem::path(dir) / program;
        if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return {};
}

class ScriptSandbox {
  public:
    explicit ScriptSandbox(const std::string& name) {
        // A space and a quote in the path: every script must take it as one positional parameter.
        dir_ = std::filesystem::temp_directory_path() /
               ("pdctl unit '" + name + "' " + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    ~ScriptSandbox() { std::filesystem::remove_all(dir_); }
    ScriptSandbox(const ScriptSandbox&) = delete;
    ScriptSandbox& operator=(const ScriptSandbox&) = delete;

    const std::filesystem::path& dir() const { return dir_; }
    exec::CommandResult run(const exec::Command& command) { return executor_.run(node_, command); }

    void write(const std::filesystem::path& path, const std::string& text) const {
        std::ofstream(path, std::ios::binary) << text;
    }
    void append(const std::filesystem::path& path, const std::string& text) const {
        std::ofstream(path, std::ios::binary | std::ios::app) << text;
    }
    std::string read(const std::filesystem::path& path) const {
        std::ifstream in(path, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }

  private:
    std::filesystem::path dir_;
    exec::LocalExecutor executor_;
    config::Node node_{"local", "127.0.0.1", {}, {}, {}};
};

}  // namespace pdctl::testing

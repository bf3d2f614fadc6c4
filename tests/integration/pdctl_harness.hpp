#pragma once
// Runs the real pdctl binary against a simulated cluster of pdsim processes on loopback addresses.
// Each test gets its own address block (127.0.<block>.1-8), state directory and cluster name, so
// tests can run in parallel and never touch each other's processes.

#include <dirent.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "pdctl/exec/local_executor.hpp"
#include "text_edit.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

struct PdctlRun {
    int exit_code = -1;
    std::string out;
    std::string err;
    std::vector<nlohmann::json> events() const {  // JSON Lines output
        std::vector<nlohmann::json> parsed;
        std::istringstream in(out);
        std::string line;
        while (std::getline(in, line))
            if (!line.empty() && line[0] == '{') parsed.push_back(nlohmann::json::parse(line));
        return parsed;
    }
};

inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

// A copy of profiles/local moved to 127.0.<block>.x with its own state dir and cluster name.
class SimCluster {
  public:
    SimCluster(const std::string& name, int block) : name_(name), block_(block) {
        dir_ =
            std::filesystem::temp_directory_path() / ("pdctl-it-" + name + "-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        const std::filesystem::path source =
            std::filesystem::path(pdctl::testing::source_dir()) / "profiles" / "local";
        for (const auto& entry : std::filesystem::directory_iterator(source)) {
            std::string text = read_text(entry.path());
            replace_all(text, "127.0.0.", "127.0." + std::to_string(block) + ".");
            replace_all(text, "/tmp/pdctl-state", (dir_ / "state").string());
            replace_all(text, "cluster: local", "cluster: " + name);
            write_text(dir_ / entry.path().filename(), text);
        }
    }
    ~SimCluster() {
        run({"stop"});  // never leave processes behind, whatever the test did
        std::filesystem::remove_all(dir_);
    }

    void append(const std::string& file, const std::string& text) {
        write_text(dir_ / file, read_text(dir_ / file) + text);
    }
    std::filesystem::path config() const { return dir_ / "pdctl.yaml"; }
    const std::string& name() const { return name_; }
    // The name pdctl gives the unit of `role` rank `rank` (plan/builder.cpp).
    std::string unit(const std::string& role, int rank) const {
        return "pd-" + name_ + "-" + role + "-" + std::to_string(rank);
    }
    std::filesystem::path state_dir() const { return dir_ / "state" / name_; }
    std::string address(int node) const {
        return "127.0." + std::to_string(block_) + "." + std::to_string(node);
    }

    PdctlRun run(std::vector<std::string> args,
                 std::chrono::seconds timeout = std::chrono::seconds(120)) const {
        args.insert(args.begin(), {"-c", config().string()});
        return run_without_config(std::move(args), timeout);
    }
    // pdctl with `args` alone (`-c OTHER.yaml ...`, `bench --sweep A B`).
    PdctlRun run_without_config(std::vector<std::string> args,
                                std::chrono::seconds timeout = std::chrono::seconds(120)) const {
        exec::LocalExecutor executor;
        exec::Command command;
        command.argv = {pdctl::testing::pdctl_binary()};
        command.argv.insert(command.argv.end(), args.begin(), args.end());
        command.timeout = timeout;
        const auto result = executor.run({"local", "127.0.0.1", {}, {}, {}}, command);
        return {result.exit_code, result.out, result.err};
    }

    // pids of live pdsim processes serving this cluster's addresses.
    std::vector<int> live_pdsim_processes() const {
        std::vector<int> pids;
        const std::string marker = "127.0." + std::to_string(block_) + ".";
        for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
            const auto name = entry.path().filename().string();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::string cmdline = read_text(entry.path() / "cmdline");
            std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
            const std::string stat = read_text(entry.path() / "stat");
            const bool zombie = stat.find(") Z ") != std::string::npos;
            if (!zombie && cmdline.find("pdsim") != std::string::npos &&
                cmdline.find(marker) != std::string::npos)
                pids.push_back(std::stoi(name));
        }
        return pids;
    }

  private:
    std::string name_;
    int block_;
    std::filesystem::path dir_;
};

// unit name -> pid of every running unit, from `status --json` (of `config`, else the cluster's own).
inline std::map<std::string, int> running_unit_pids(const SimCluster& cluster,
                                                    const std::filesystem::path& config = {}) {
    const auto status = config.empty()
                            ? cluster.run({"--json", "status"})
                            : cluster.run_without_config({"-c", config.string(), "--json", "status"});
    std::map<std::string, int> units;
    const auto doc = nlohmann::json::parse(status.out, nullptr, false);
    if (!doc.is_object()) {
        ADD_FAILURE() << "status --json: " << status.out << status.err;
        return units;
    }
    for (const auto& role : doc["roles"])
        for (const auto& unit : role["units"])
            if (unit.value("state", "") == "running")
                units[unit["unit"].get<std::string>()] = unit["pid"].get<int>();
    return units;
}

}  // namespace pdctl::testing

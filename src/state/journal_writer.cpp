#include "pdctl/state/journal_writer.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/journal.hpp"

namespace pdctl::state {
namespace {

std::string cluster_dir(const config::Cluster& cluster) {
    return config::cluster_state_dir(cluster.state_dir, cluster.name);
}

void append_to(const std::filesystem::path& path, const std::string& lines) {
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    std::ofstream out(path, std::ios::app | std::ios::binary);
    if (!error && out) out << lines;
    if (error || !out) spdlog::warn("journal: cannot append to {}", path.string());
}

void append_locally(const std::string& cluster, const std::string& lines) {
    const auto path = local_journal_path(cluster);
    if (path.empty()) {
        spdlog::warn("journal: neither XDG_STATE_HOME nor HOME is set; no local copy of this run");
        return;
    }
    append_to(path, lines);
}

}  // namespace

std::filesystem::path pending_journal_path(const std::string& cluster) {
    const auto local = local_journal_path(cluster);
    return local.empty() ? local : local.parent_path() / (cluster + ".pending.jsonl");
}

std::string pending_journal(const std::string& cluster) {
    const auto path = pending_journal_path(cluster);
    if (path.empty()) return {};
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string journal_location(const config::Cluster& cluster) {
    return state::coordinator_node(cluster).name + ":" + state::journal::journal_path(cluster_dir(cluster));
}

std::filesystem::path local_journal_path(const std::string& cluster) {
    std::filesystem::path base;
    if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state == '/') {
        base = state;
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        base = std::filesystem::path(home) / ".local" / "state";
    } else {
        return {};
    }
    return base / "pdctl" / (cluster + ".jsonl");
}

void write_journal(exec::Executor& executor, const config::Cluster& cluster, const std::string& lines) {
    const auto& coordinator = state::coordinator_node(cluster);
    const auto pending = pending_journal(cluster.name);
    const auto answer =
        executor.run(coordinator, state::journal::append_command(cluster_dir(cluster), pending + lines));
    const auto pending_path = pending_journal_path(cluster.name);
    if (answer.ok()) {
        if (!pending.empty()) {
            std::error_code ignored;
            std::filesystem::remove(pending_path, ignored);
            spdlog::info("journal: the records kept while {} was unreachable are on it now",
                         coordinator.name);
        }
    } else if (!pending_path.empty()) {
        spdlog::warn("journal: cannot append this run to {}: {}; kept on this machine ({}) until {} answers",
                     journal_location(cluster), exec::failure_reason(answer), pending_path.string(),
                     coordinator.name);
        append_to(pending_path, lines);
    } else {
        spdlog::warn("journal: cannot append this run to {}: {}", journal_location(cluster),
                     exec::failure_reason(answer));
    }
    append_locally(cluster.name, lines);
}

}  // namespace pdctl::state

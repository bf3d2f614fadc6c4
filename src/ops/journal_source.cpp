#include "pdctl/ops/journal_source.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"

namespace pdctl::ops {
namespace {

// Enough for thousands of runs; older ones stay in the file, out of these views.
constexpr std::size_t kReadBytes = 16u << 20;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

JournalText read_local_journal(const config::Cluster& cluster) {
    const auto local = state::local_journal_path(cluster.name);
    JournalText journal;
    journal.source =
        local.empty() ? "(no local journal: neither XDG_STATE_HOME nor HOME is set)" : local.string();
    if (!local.empty()) journal.text = read_file(local);
    return journal;
}

JournalText read_journal(const Deployment& deployment) {
    const auto& coordinator = state::coordinator_node(deployment.cluster);
    const auto answer = deployment.executor->run(
        coordinator,
        state::journal::read_command(
            config::cluster_state_dir(deployment.cluster.state_dir, deployment.cluster.name), kReadBytes));
    if (!answer.transport_error.empty()) {
        // The coordinator is gone: this machine's own runs are better than nothing, and exit 3 says so.
        auto journal = read_local_journal(deployment.cluster);
        spdlog::warn("{} ({}), the coordinator, is unreachable: {}; showing this machine's copy {}",
                     coordinator.name, coordinator.address, answer.transport_error, journal.source);
        journal.source += " (this machine's runs only)";
        journal.code = ExitCode::kUnreachable;
        return journal;
    }
    auto source = state::journal_location(deployment.cluster);
    if (!answer.ok())
        throw Failure(ExitCode::kInternal,
                      fmt::format("cannot read the journal {}: {}", source, exec::failure_reason(answer)));
    // Runs this machine made while the coordinator was unreachable reach it with the next record written;
    // until then they are shown from here, without writing anything.
    const auto pending = state::pending_journal(deployment.cluster.name);
    if (!pending.empty())
        source += " and " + state::pending_journal_path(deployment.cluster.name).string() +
                  " (runs made while it was unreachable)";
    return {answer.out + pending, source, ExitCode::kOk};
}

}  // namespace pdctl::ops

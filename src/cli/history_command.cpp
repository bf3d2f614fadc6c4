// pdctl history: past start/stop/restart runs, read from the coordinator's journal.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>
#include <sstream>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/report/history_view.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

// Enough for thousands of runs; older ones stay in the file, out of this view.
constexpr std::size_t kReadBytes = 16u << 20;

struct HistoryOptions {
    int limit = 20;  // 0: every run the journal holds
};

std::string read_local_copy(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

ExitCode history_command(const GlobalOptions& global, const HistoryOptions& options) {
    if (options.limit < 0) throw Failure(ExitCode::kUsage, "--limit takes 0 (every run) or more");
    auto context = load_context(global);
    auto& executor = *context.executor;
    const auto& coordinator = state::coordinator_node(context.cluster);
    const auto answer = executor.run(
        coordinator,
        state::journal::read_command(
            config::cluster_state_dir(context.cluster.state_dir, context.cluster.name), kReadBytes));

    ExitCode code = ExitCode::kOk;
    std::string source = state::journal_location(context.cluster);
    std::string text = answer.out;
    if (!answer.transport_error.empty()) {
        // The coordinator is gone: this machine's own runs are better than nothing, and exit 3 says so.
        const auto local = state::local_journal_path(context.cluster.name);
        spdlog::warn("{} ({}), the coordinator, is unreachable: {}; showing this machine's copy {}",
                     coordinator.name, coordinator.address, answer.transport_error, local.string());
        source = local.string() + " (this machine's runs only)";
        text = local.empty() ? "" : read_local_copy(local);
        code = ExitCode::kUnreachable;
    } else if (!answer.ok()) {
        throw Failure(ExitCode::kInternal, fmt::format("cannot read the journal {}: {}", source,
                                                       answer.timed_out ? "timed out" : answer.err));
    }

    auto runs = state::journal::parse_history(text);
    const std::size_t limit = options.limit == 0 ? runs.size() : static_cast<std::size_t>(options.limit);
    runs = state::journal::newest(std::move(runs), limit);
    const std::string output =
        global.json ? report::history_to_json(runs, context.cluster.name, source).dump(2) + "\n"
                    : report::render_history_text(runs, source);
    fmt::print("{}", context.redactor.redact(output));
    return code;
}

}  // namespace

void add_history_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<HistoryOptions>();
    auto* command = app.add_subcommand("history",
                                       "past runs of every verb that changed the cluster (start, stop, "
                                       "restart, push, pull), from the coordinator's journal");
    command->add_option("--limit", options->limit, "newest runs to show (0: all)")->capture_default_str();
    verbs.add(command, [options](const GlobalOptions& global) { return history_command(global, *options); });
}

}  // namespace pdctl::cli

// pdctl history: past start/stop/restart runs, read from the coordinator's journal.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/journal_queries.hpp"
#include "pdctl/report/history_view.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct HistoryOptions {
    int limit = 20;  // 0: every run the journal holds
};

ExitCode history_command(const GlobalOptions& global, const HistoryOptions& options) {
    if (options.limit < 0) throw Failure(ExitCode::kUsage, "--limit takes 0 (every run) or more");
    auto context = load_context(global);
    const auto past = ops::read_past_runs(context, static_cast<std::size_t>(options.limit));
    const auto& runs = past.runs;
    const std::string& source = past.source;
    const std::string output =
        global.json ? report::history_to_json(runs, context.cluster.name, source).dump(2) + "\n"
                    : report::render_history_text(runs, source);
    fmt::print("{}", context.redactor.redact(output));
    return past.code;
}

}  // namespace

void add_history_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<HistoryOptions>();
    auto* command = app.add_subcommand("history",
                                       "past runs of every verb that changed or measured the cluster "
                                       "(start, stop, restart, push, pull, heal, bench, drill, lock "
                                       "release --force), from the coordinator's journal");
    command->add_option("--limit", options->limit, "newest runs to show (0: all)")->capture_default_str();
    verbs.add(command, [options](const GlobalOptions& global) { return history_command(global, *options); });
}

}  // namespace pdctl::cli

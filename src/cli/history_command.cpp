// pdctl history: past runs of the verbs that changed or measured the cluster, as the coordinator
// recorded them (ops/past_runs.hpp).
#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/past_runs.hpp"
#include "pdctl/report/history_view.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct HistoryOptions {
    int limit = 20;  // 0: every run recorded
};

ExitCode history_command(const GlobalOptions& global, const HistoryOptions& options) {
    if (options.limit < 0) throw Failure(ExitCode::kUsage, "--limit takes 0 (every run) or more");
    auto context = load_context(global);
    const auto past = ops::read_past_runs(context, static_cast<std::size_t>(options.limit));
    print_result(
        global, context.redactor,
        [&] { return report::history_to_json(past.runs, context.cluster.name, past.source); },
        [&] { return report::render_history_text(past.runs, past.source); });
    return past.code;
}

}  // namespace

void add_history_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<HistoryOptions>();
    auto* command =
        app.add_subcommand("history",
                           "past runs of every verb that changed or measured the cluster "
                           "(start, stop, restart, rollout, rollback, push, pull, heal, bench, drill, lock "
                           "release --force), from the run history kept on the coordinator");
    command->add_option("--limit", options->limit, "newest runs to show (0: all)")->capture_default_str();
    verbs.add(command, [options](const GlobalOptions& global) { return history_command(global, *options); });
}

}  // namespace pdctl::cli

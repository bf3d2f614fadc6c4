// pdctl push: the runbook's "copy 3 files to all 8 nodes, then check 3/3" step, in parallel and
// verified. Every source is read and hashed before any node is touched; the run holds the deploy lock
// (a start must not pip-install a wheel that is being replaced) and is journaled like start/stop.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>

#include "mutating_run.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/lint/finding.hpp"
#include "pdctl/push/pusher.hpp"
#include "pdctl/report/push_view.hpp"
#include "pdctl/report/silent_reporter.hpp"
#include "pdctl/util/sha256.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

// Hashes each distinct source once; a source that cannot be read is a config error at its line.
std::map<std::string, push::LocalFile> read_sources(const config::Cluster& cluster) {
    std::map<std::string, push::LocalFile> local;
    for (std::size_t i = 0; i < cluster.files.size(); ++i) {
        const auto& file = cluster.files[i];
        if (local.count(file.source)) continue;
        std::string why;
        const auto sha = util::sha256_file_hex(file.source, &why);
        if (!sha) {
            const auto where = lint::format_location(file.source_where);
            throw Failure(ExitCode::kUsage,
                          fmt::format("{}{}files[{}].source: cannot read {}: {} (nothing was pushed)", where,
                                      where.empty() ? "" : ": ", i, file.source, why),
                          "relative sources start at the cluster file's directory");
        }
        std::error_code ignored;
        local[file.source] = {*sha,
                              static_cast<std::uint64_t>(std::filesystem::file_size(file.source, ignored))};
    }
    return local;
}

std::string journal_line(const std::string& node, const push::FileOutcome& file) {
    auto line = fmt::format("push {} {} {}", node, file.dest, push::to_string(file.status));
    if (file.bytes > 0) line += fmt::format(" ({} bytes)", file.bytes);
    if (!file.error.empty()) line += ": " + file.error;
    return line;
}

// Prints and journals each outcome.
class JournaledPushPrinter : public push::PushObserver {
  public:
    JournaledPushPrinter(report::PushPrinter& printer, engine::Reporter& journal)
        : printer_(printer), journal_(journal) {}
    void file_done(const std::string& node, const push::FileOutcome& file, std::size_t done,
                   std::size_t total) override {
        printer_.file_done(node, file, done, total);
        journal_.note(journal_line(node, file));
    }
    void node_done(const push::NodeOutcome& outcome) override { printer_.node_done(outcome); }

  private:
    report::PushPrinter& printer_;
    engine::Reporter& journal_;
};

ExitCode push_command(const GlobalOptions& global) {
    auto context = load_context(global, Purpose::kOnNodes, "push");
    if (context.cluster.files.empty()) {
        fmt::print(stderr, "pdctl: nothing to push: {} declares no `files:` (docs/config.md)\n",
                   context.cluster.config_path);
        return ExitCode::kOk;
    }
    const auto plan = push::plan_push(context.cluster);
    const auto local = read_sources(context.cluster);
    std::uint64_t at_most = 0;
    for (const auto& node : plan)
        for (const auto& file : node.files) at_most += local.at(file.source).size;

    auto& executor = *context.executor;
    report::SilentReporter silent;
    report::PushPrinter printer(stdout, global.json, context.redactor);
    engine::install_interrupt_handlers();
    return run_mutating_verb(context, executor, silent, "push", [&](engine::Reporter& journal) {
        journal.run_begin("push", context.plan);
        printer.begin(context.cluster.files.size(), plan.size(), at_most);
        JournaledPushPrinter observer(printer, journal);
        push::PushOptions options;
        options.interrupted = [] { return engine::interrupted(); };
        const auto result = push::run_push(executor, plan, local, observer, options);
        printer.end(result);
        engine::RunSummary summary;
        summary.verb = "push";
        summary.elapsed = result.elapsed;
        summary.code = engine::interrupted()      ? ExitCode::kInterrupted
                       : result.all_in_place()    ? ExitCode::kOk
                       : result.any_unreachable() ? ExitCode::kUnreachable
                                                  : ExitCode::kStageFailed;
        summary.message =
            fmt::format("{} sent to {} nodes", report::format_bytes(result.bytes_sent()), plan.size());
        journal.run_end(summary);
        return summary.code;
    });
}

}  // namespace

void add_push_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand(
        "push",
        "copy the config's `files:` to their nodes in parallel: sha256-verified, identical files skipped");
    verbs.add(command, push_command);
}

}  // namespace pdctl::cli

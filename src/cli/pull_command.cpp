// pdctl pull: the runbook's "docker pull on every node" step, in parallel and verified: after the pulls,
// every node must report the same image ID for each image (a tag moved during the rollout, or a node
// pulling through another mirror, would otherwise start mixed versions). Holds the deploy lock (a start
// must not run half-pulled images) and is journaled like push.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "mutating_run.hpp"
#include "pdctl/config/duration.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/pull/puller.hpp"
#include "pdctl/report/pull_view.hpp"
#include "pdctl/report/silent_reporter.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct PullOptions {
    std::vector<std::string> roles;  // --role: only these roles' images (on their nodes)
    std::vector<std::string> nodes;  // --node: only on these nodes
    std::string timeout = "60m";     // one `<cli> pull`; images of 30+ GB take many minutes
};

std::string journal_line(const std::string& node, const pull::ImageOutcome& image) {
    auto line = fmt::format("pull {} {} {}", node, image.image.image, pull::to_string(image.status));
    if (!image.id.empty()) line += " " + image.id;
    if (!image.error.empty()) line += ": " + image.error;
    return line;
}

// Prints and journals each outcome.
class JournaledPullPrinter : public pull::PullObserver {
  public:
    JournaledPullPrinter(report::PullPrinter& printer, engine::Reporter& journal)
        : printer_(printer), journal_(journal) {}
    void image_done(const std::string& node, const pull::ImageOutcome& image, std::size_t done,
                    std::size_t total) override {
        printer_.image_done(node, image, done, total);
        journal_.note(journal_line(node, image));
    }
    void node_done(const pull::NodeOutcome& outcome) override { printer_.node_done(outcome); }
    void still_pulling(const std::string& node, const pull::ImageRef& image,
                       pull::Duration elapsed) override {
        printer_.still_pulling(node, image, elapsed);
    }

  private:
    report::PullPrinter& printer_;
    engine::Reporter& journal_;
};

pull::Duration parse_timeout(const std::string& text) {
    const auto timeout = config::parse_duration(text);
    if (!timeout || timeout->count() <= 0)
        throw Failure(ExitCode::kUsage, "--timeout: cannot read '" + text + "'",
                      std::string("a duration: ") + config::kDurationForms);
    return *timeout;
}

ExitCode pull_command(const GlobalOptions& global, const PullOptions& options) {
    auto context = load_context(global, Purpose::kOnNodes, "pull");
    const pull::PullFilter filter{options.roles, options.nodes};
    const auto unknown = pull::unknown_names(context.cluster, filter);
    if (!unknown.empty()) {
        std::string names;
        for (const auto& name : unknown) names += (names.empty() ? "" : ", ") + name;
        throw Failure(ExitCode::kUsage, "pull: no " + names + " in " + context.cluster.config_path,
                      "`pdctl plan` lists the roles and nodes");
    }
    pull::PullOptions pull_options;
    pull_options.timeout = parse_timeout(options.timeout);
    const auto plan = pull::plan_pull(context.cluster, filter);
    if (plan.empty()) {
        fmt::print(stderr,
                   "pdctl: nothing to pull: no role{} runs with `runtime: docker` and an image (process "
                   "roles need no image)\n",
                   filter.roles.empty() && filter.nodes.empty() ? "" : " selected by --role/--node");
        return ExitCode::kOk;
    }

    auto& executor = *context.executor;
    report::SilentReporter silent;
    report::PullPrinter printer(stdout, global.json, context.redactor);
    engine::install_interrupt_handlers();
    return run_mutating_verb(context, executor, silent, "pull", [&](engine::Reporter& journal) {
        journal.run_begin("pull", context.plan);
        printer.begin(plan);
        JournaledPullPrinter observer(printer, journal);
        pull_options.interrupted = [] { return engine::interrupted(); };
        const auto result = pull::run_pull(executor, plan, observer, pull_options);
        printer.end(result);
        for (const auto& mismatch : result.mismatches)
            journal.note(fmt::format("pull {} {} differs: {} (most nodes: {})", mismatch.node,
                                     mismatch.image.image, mismatch.id, mismatch.majority));
        engine::RunSummary summary;
        summary.verb = "pull";
        summary.elapsed = result.elapsed;
        // Unreachable first, as everywhere (docs/exit-codes.md): the operator fixes the link, then reruns.
        summary.code = engine::interrupted()      ? ExitCode::kInterrupted
                       : result.all_pulled()      ? ExitCode::kOk
                       : result.any_unreachable() ? ExitCode::kUnreachable
                                                  : ExitCode::kStageFailed;
        summary.message = report::pull_summary_lines(result).front();
        journal.run_end(summary);
        return summary.code;
    });
}

}  // namespace

void add_pull_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<PullOptions>();
    auto* command = app.add_subcommand(
        "pull",
        "pull the docker-runtime roles' images on their nodes in parallel, then require one image ID "
        "per image on every node");
    command->add_option("--role", options->roles, "only this role's image (repeatable)")
        ->type_name("ROLE")
        ->allow_extra_args(false);
    command->add_option("--node", options->nodes, "only on this node (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    command->add_option("--timeout", options->timeout, "per pull: 90s, 25m, 2h")->capture_default_str();
    verbs.add(command, [options](const GlobalOptions& global) { return pull_command(global, *options); });
}

}  // namespace pdctl::cli

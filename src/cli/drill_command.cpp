// pdctl drill FAULT: break the deployment on purpose under load, measure its recovery (docs/drills.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "deprecated_flag.hpp"
#include "duration_flag.hpp"
#include "engine_flags.hpp"
#include "pdctl/ops/drill.hpp"
#include "pdctl/report/drill_view.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct DrillFlags {
    std::string fault;
    std::string group;
    int rank = 0;
    std::string node;
    std::string partition_for = "20s";
    std::string warmup = "3s";
    std::string deadline = "5m";
    bool no_heal = false;
    std::vector<int> concurrency{4};  // bench's --concurrency shape, one level
    std::string junit;
};

ExitCode drill_command(const GlobalOptions& global, const DrillFlags& flags) {
    ops::DrillRequest request;
    const auto fault = ops::parse_drill_fault(flags.fault);
    if (!fault)
        throw Failure(ExitCode::kUsage, "no fault '" + flags.fault + "'",
                      std::string("faults: ") + ops::kDrillFaults);
    request.fault = *fault;
    request.group = flags.group;
    request.rank = flags.rank;
    request.node = flags.node;
    if (request.fault == ops::DrillFault::kPartition && request.node.empty())
        throw Failure(ExitCode::kUsage, "partition needs --node NODE: the node to cut off");
    request.partition_for = parse_duration_flag("--partition-time", flags.partition_for);
    request.warmup = parse_duration_flag("--warmup-time", flags.warmup, ZeroDuration::kAllowed);
    request.deadline = parse_duration_flag("--deadline", flags.deadline);
    request.heal = !flags.no_heal;
    if (flags.concurrency.size() != 1)
        throw Failure(ExitCode::kUsage,
                      "a drill runs one load level, not " + std::to_string(flags.concurrency.size()),
                      "--concurrency N; `pdctl bench --concurrency 1,4,16` compares levels");
    if (flags.concurrency.front() < 1) throw Failure(ExitCode::kUsage, "--concurrency must be at least 1");
    request.concurrency = flags.concurrency.front();
    if (!flags.junit.empty()) check_junit_path(flags.junit);
    const auto context = load_context(global);
    auto reporter = make_reporter(global, context.redactor);
    const auto result = ops::run_drill(context, request, *reporter);
    const auto text =
        global.json ? report::drill_to_json(result).dump() + "\n" : report::render_drill_text(result);
    fmt::print("{}", context.redactor.redact(text));
    if (!flags.junit.empty()) {
        std::string error;
        if (!report::write_junit(
                flags.junit,
                report::redacted({report::drill_suite(result, result.elapsed_s)}, context.redactor), error))
            throw Failure(ExitCode::kUsage, "--junit " + flags.junit + ": " + error);
    }
    return result.code;
}

}  // namespace

void add_drill_verb(CLI::App& app, Verbs& verbs) {
    auto flags = std::make_shared<DrillFlags>();
    auto* command = app.add_subcommand("drill",
                                       "break the deployment on purpose under load (kill-rank, hang-rank, "
                                       "kill-router, kill-master, partition) "
                                       "and measure the recovery; only with `drills: allowed`");
    command->add_option("fault", flags->fault, ops::kDrillFaults)->required()->type_name("FAULT");
    command
        ->add_option("--group", flags->group,
                     "kill-rank, hang-rank: the group (default: the last decode group)")
        ->type_name("GROUP");
    command->add_option("--rank", flags->rank, "kill-rank, hang-rank: the rank (default 0)");
    command->add_option("--node", flags->node, "partition: the node to cut off")->type_name("NODE");
    // --warmup is bench's count of requests; here the warm-up is a time, so it has its own name. The old
    // spellings (--for, --warmup with a duration) keep working, with a notice, for one release.
    auto* partition_time = add_duration_option(*command, "--partition-time", flags->partition_for,
                                               "partition: how long the link stays down (default 20s)");
    auto* warmup_time =
        add_duration_option(*command, "--warmup-time", flags->warmup, "load before the fault (default 3s)");
    add_duration_option(*command, "--deadline", flags->deadline,
                        "time to recover, from the fault (default 5m)");
    add_deprecated_alias(*command, "--for", *partition_time, flags->partition_for);
    add_deprecated_alias(*command, "--warmup", *warmup_time, flags->warmup);
    command->add_flag("--no-heal", flags->no_heal, "only watch: what recovers without pdctl's heal?");
    command
        ->add_option("--concurrency", flags->concurrency,
                     "closed-loop request streams through the router, one level (default 4)")
        ->delimiter(',');
    command
        ->add_option("--junit", flags->junit,
                     "also write a JUnit XML report to FILE: one test case, whether the deployment recovered "
                     "within --deadline, with the drill's report (for CI)")
        ->type_name("FILE");
    verbs.add(command, [flags](const GlobalOptions& global) { return drill_command(global, *flags); });
}

}  // namespace pdctl::cli

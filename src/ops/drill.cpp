#include "pdctl/ops/drill.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>

#include "embedded/ops_scripts.hpp"
#include "pdctl/engine/backend.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/gate_probe.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/load/load_runner.hpp"
#include "pdctl/ops/heal.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/ops/status.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

struct FaultTarget {
    const plan::Stage* stage = nullptr;
    const plan::Unit* unit = nullptr;
    const config::Node* node = nullptr;
    int pid = 0;
    std::string description;
};

const config::Node& node_named(const plan::Plan& plan, const std::string& name) {
    for (const auto& node : plan.nodes)
        if (node.name == name) return node;
    throw Failure(ExitCode::kUsage, "no node " + name + " in the cluster file");
}

const plan::Stage* first_of_kind(const plan::Plan& plan, config::RoleKind kind) {
    for (const auto& stage : plan.stages)
        if (stage.kind == kind) return &stage;
    return nullptr;
}

// The stage and rank the fault hits, with the pid the status saw.
FaultTarget fault_target_of(const plan::Plan& plan, const engine::ClusterStatus& status,
                            const DrillRequest& request) {
    FaultTarget target;
    int rank = 0;
    switch (request.fault) {
        case DrillFault::kKillRank:
        case DrillFault::kHangRank:
            if (request.group.empty()) {
                for (const auto& stage : plan.stages)
                    if (stage.kind == config::RoleKind::Sglang && stage.mode == "decode")
                        target.stage = &stage;
            } else {
                target.stage = plan.find_stage(request.group);
            }
            if (!target.stage || target.stage->kind != config::RoleKind::Sglang)
                throw Failure(ExitCode::kUsage, "--group " + request.group + ": no SGLang group of that name",
                              "a role's first group has the role's name, the next ones NAME-2, NAME-3 ...");
            rank = request.rank;
            break;
        case DrillFault::kKillRouter:
            target.stage = first_of_kind(plan, config::RoleKind::Router);
            break;
        case DrillFault::kKillMaster:
            target.stage = first_of_kind(plan, config::RoleKind::MooncakeMaster);
            break;
        case DrillFault::kPartition: {
            target.node = &node_named(plan, request.node);
            target.description =
                fmt::format("{} ({}) cut off for {}", target.node->name, target.node->address,
                            util::format_elapsed(request.partition_for));
            return target;
        }
    }
    if (!target.stage)
        throw Failure(ExitCode::kUsage, "the cluster file has no stage for " + to_string(request.fault));
    for (const auto& unit : target.stage->units)
        if (unit.rank == rank) target.unit = &unit;
    if (!target.unit)
        throw Failure(ExitCode::kUsage, fmt::format("{} has no rank {}", target.stage->role, rank),
                      fmt::format("its ranks are 0 to {}", target.stage->units.size() - 1));
    target.node = &engine::plan_node(plan, target.unit->node);
    for (const auto& role : status.roles)
        for (const auto& unit : role.units)
            if (unit.unit == target.unit->name) target.pid = unit.pid;
    if (target.pid <= 0)
        throw Failure(ExitCode::kDegraded,
                      target.unit->name + " has no process to signal (status shows no pid)");
    target.description =
        fmt::format("{} rank {} on {} (pid {})", target.stage->role, rank, target.unit->node, target.pid);
    return target;
}

exec::Command fault_command(const DrillRequest& request, const FaultTarget& target) {
    exec::Command command;
    command.timeout = std::chrono::seconds(20);
    // The unit's pid leads its process group (the process runtime's wrapper shell and the program it
    // runs, a container's init and what it runs): the signal goes to the whole group, as a rank that
    // dies or hangs takes everything of it along.
    const auto group = "-" + std::to_string(target.pid);
    switch (request.fault) {
        case DrillFault::kHangRank:
            command.argv = {"kill", "-s", "STOP", "--", group};
            break;
        case DrillFault::kPartition:
            command.argv = {
                "sh",
                "-c",
                std::string(scripts::drill_partition),
                "pdctl-drill-partition",
                target.node->address,
                std::to_string(
                    std::chrono::duration_cast<std::chrono::seconds>(request.partition_for).count())};
            break;
        default:
            command.argv = {"kill", "-s", "KILL", "--", group};
            break;
    }
    return command;
}

// The first gate that fails, or "" when every stage's gate passes: the checks `start` waits for, from
// this machine over HTTP only. A status read would ask the nodes over SSH first, and a node cut off
// for less than a command's timeout holds that read until it is back.
std::string failing_gate(const plan::Plan& plan, health::HttpProber& prober) {
    std::vector<engine::GateAnswer> answers(plan.stages.size());
    util::for_each_parallel(plan.stages.size(), util::kEngineFanout, [&](std::size_t i) {
        answers[i] = engine::probe_gate(plan.stages[i].gate, prober,
                                        {std::chrono::seconds(2), std::chrono::seconds(10)});
    });
    for (std::size_t i = 0; i < answers.size(); ++i)
        if (!answers[i].passed) return plan.stages[i].role + ": " + answers[i].answer;
    return "";
}

std::string router_url(const plan::Plan& plan) {
    for (const auto& stage : plan.stages)
        if (stage.router) return util::url_with_path(stage.router->url, "/generate");
    throw Failure(ExitCode::kUsage,
                  "a drill sends its load through the router, and the cluster file has none");
}

// The failed requests: how many of each error, and when they ended relative to the fault.
void tally(const load::LoadResult& load, double fault_s, DrillResult& result) {
    std::map<std::string, int> errors;
    for (const auto& record : load.records) {
        ++result.sent;
        if (record.ok()) continue;
        ++result.failed;
        ++errors[record.error.substr(0, 160)];
        const double ended = record.sent_s + record.e2e_s - fault_s;
        if (result.first_failure_s < 0 || ended < result.first_failure_s) result.first_failure_s = ended;
        result.last_failure_s = std::max(result.last_failure_s, ended);
    }
    for (const auto& [text, count] : errors) result.errors.emplace_back(text, count);
    std::stable_sort(result.errors.begin(), result.errors.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
}

std::string summary(const DrillResult& result) {
    return fmt::format(
        "drill {}: {}; {} of {} requests failed; detected {}; {}", result.fault, result.target, result.failed,
        result.sent, result.detect_ms < 0 ? "never" : fmt::format("after {} ms", result.detect_ms),
        result.recover_ms < 0
            ? "not recovered: a person is needed"
            : fmt::format("recovered after {} ms by {}", result.recover_ms, result.recovered_by));
}

}  // namespace

std::optional<DrillFault> parse_drill_fault(const std::string& text) {
    for (const auto fault : {DrillFault::kKillRank, DrillFault::kHangRank, DrillFault::kKillRouter,
                             DrillFault::kKillMaster, DrillFault::kPartition})
        if (to_string(fault) == text) return fault;
    return std::nullopt;
}

std::string to_string(DrillFault fault) {
    switch (fault) {
        case DrillFault::kKillRank:
            return "kill-rank";
        case DrillFault::kHangRank:
            return "hang-rank";
        case DrillFault::kKillRouter:
            return "kill-router";
        case DrillFault::kKillMaster:
            return "kill-master";
        case DrillFault::kPartition:
            return "partition";
    }
    return "?";
}

DrillResult run_drill(const Deployment& deployment, const DrillRequest& request, engine::Reporter& screen,
                      const DrillLoad& send_load) {
    engine::install_interrupt_handlers();
    auto& clock = *deployment.clock;
    const auto began = clock.now();
    const auto since = [&clock](engine::TimePoint from) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - from).count();
    };
    const auto& cluster = deployment.cluster;
    if (!cluster.drills_allowed)
        throw Failure(
            ExitCode::kUsage,
            fmt::format("drills are refused on cluster {} ({}): a drill breaks the deployment on purpose",
                        cluster.name, cluster.config_path),
            "a test deployment's cluster file allows them with `drills: allowed`; never a production one");
    DrillResult result;
    result.fault = to_string(request.fault);
    const auto before = read_status(deployment, {}, {.probe = true});
    if (engine::status_exit_code(before) != ExitCode::kOk)
        throw Failure(
            ExitCode::kDegraded,
            "a drill starts from a deployment where every role runs and is ready, and this one is " +
                before.state,
            "`pdctl status` says what is not; `pdctl heal` or `pdctl start` puts it right");
    const auto target = fault_target_of(deployment.plan, before, request);
    result.target = target.description;
    result.router = router_url(deployment.plan);

    load::LoadSpec spec;
    spec.url = result.router;
    spec.input_tokens = request.input_tokens;
    spec.output_tokens = request.output_tokens;
    spec.concurrency = request.concurrency;
    spec.duration = request.warmup + request.deadline + std::chrono::seconds(5);
    spec.timeout = std::chrono::seconds(30);
    std::atomic<bool> done{false};
    spec.cancelled = [&done] { return done.load() || engine::interrupted(); };
    const auto load_began = clock.now();
    auto running = std::async(std::launch::async, [spec, &send_load] {
        return send_load ? send_load(spec) : load::run_load(spec, {});
    });
    // Whatever ends the drill (an error included), the load stops before its future is waited for.
    struct StopLoad {
        std::atomic<bool>& done;
        ~StopLoad() { done = true; }
    } stop_load{done};
    screen.note(fmt::format("drill {}: load through {} ({} streams), fault in {}", result.fault,
                            result.router, request.concurrency, util::format_elapsed(request.warmup)));

    clock.sleep_for(request.warmup);
    const auto answer = deployment.executor->run(*target.node, fault_command(request, target));
    const auto fault_at = clock.now();
    if (!answer.ok()) {
        done = true;
        running.wait();
        throw Failure(ExitCode::kCommandFailed,
                      fmt::format("drill {}: the fault could not be injected on {}: {}", result.fault,
                                  target.node->name, exec::failure_reason(answer)));
    }
    screen.note(fmt::format("drill {}: {}", result.fault, target.description));

    // Detect: the gates until one fails. Then recover: heal passes (unless only watching) and status
    // until every role runs and is ready again, within the deadline.
    const auto deadline = fault_at + request.deadline;
    auto& prober = *deployment.prober;
    while (clock.now() < deadline && !engine::interrupted()) {
        if (result.detect_ms < 0) {
            const auto failing = failing_gate(deployment.plan, prober);
            if (failing.empty()) {
                clock.sleep_for(request.poll_interval);
                continue;
            }
            result.detect_ms = since(fault_at);
            screen.note(fmt::format("drill {}: detected after {}: {}", result.fault,
                                    util::format_elapsed(std::chrono::milliseconds(result.detect_ms)),
                                    failing));
        }
        const bool ready =
            engine::status_exit_code(read_status(deployment, {}, {.probe = true})) == ExitCode::kOk;
        if (ready) {
            result.recover_ms = since(fault_at);
            result.recovered_by = result.heal_actions.empty() ? "itself" : "heal";
            break;
        }
        if (request.heal) {
            bool acted = false;
            try {
                const auto pass = run_heal_pass(deployment, {}, screen);
                ++result.heal_passes;
                for (const auto& step : pass.steps) {
                    if (step.action.kind == HealKind::kWait || step.action.kind == HealKind::kBlind) continue;
                    acted = true;
                    result.heal_actions.push_back(describe(step.action) + ": " + step.outcome);
                }
            } catch (const Failure& failure) {
                result.notes.push_back(std::string("a heal pass ended: ") + failure.what());
            }
            if (acted) continue;  // straight to the status that says whether it worked
        }
        clock.sleep_for(request.poll_interval);
    }
    done = true;
    const auto load = running.get();
    tally(load, util::to_seconds(fault_at - load_began), result);
    if (result.recover_ms < 0)
        result.code = engine::interrupted() ? ExitCode::kInterrupted : ExitCode::kGateTimeout;
    // The drill in the journal: a run of its own, like `lock release --force`.
    try {
        journal_audit(deployment, "drill", summary(result));
    } catch (const Failure& failure) {
        result.notes.push_back(std::string("not journaled: ") + failure.what());
    }
    result.elapsed_s = util::to_seconds(clock.now() - began);
    return result;
}

}  // namespace pdctl::ops

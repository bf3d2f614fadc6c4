#include "pdctl/engine/status.hpp"

#include <fmt/format.h>

#include <set>

#include "pdctl/engine/gate_probe.hpp"
#include "pdctl/util/parallel.hpp"
#include "status_metrics.hpp"
#include "status_progress.hpp"

namespace pdctl::engine {
namespace {

UnitStatus unit_status(const plan::Stage& stage, const plan::Unit& unit, const Observation& observation) {
    UnitStatus status;
    status.role = stage.role;
    status.node = unit.node;
    status.address = unit.address;
    status.unit = unit.name;
    status.rank = unit.rank;
    status.health = "-";
    status.config = "-";
    const auto& node_state = observation.nodes.at(unit.node);
    if (!node_state.transport_error.empty() || !node_state.inspect_error.empty()) {
        status.state = "unknown";
        return status;
    }
    const auto* found = observation.find(unit.node, unit.name);
    if (!found) {
        status.state = "absent";
        return status;
    }
    const auto& state = found->state;
    status.state = state.running ? "running" : "exited";
    status.scheduler = state.scheduler;
    // Submitted, and its rank not started yet: SLURM has not given the job its nodes.
    if (state.running && state.pid == 0 && state.scheduler.find(" PENDING ") != std::string::npos)
        status.state = "pending";
    status.exit_code = state.exit_code;
    status.pid = state.pid;
    auto config = state.labels.find("pdctl.config");
    status.config = config != state.labels.end() && config->second == unit.fingerprint ? "current" : "drift";
    if (state.running && state.age_seconds >= 0)
        status.uptime_seconds = state.age_seconds;
    else if (state.running && state.started_epoch > 0 && state.node_now_epoch >= state.started_epoch)
        status.uptime_seconds = state.node_now_epoch - state.started_epoch;
    return status;
}

constexpr GateTimeouts kStatusTimeouts{std::chrono::seconds(2), std::chrono::seconds(10)};

// A stage's gate without a request through it. A router with a worker API (SMG, sglang-router) is
// judged by /readiness and /workers, the gate's other checks. MiniLB's /health is 200 whatever its
// workers do, so each worker's own /health is asked too, as MiniLB would reach it.
GateAnswer probe_without_request(const plan::Stage& stage, health::HttpProber& prober) {
    auto answer = probe_gate(stage.gate, prober, kStatusTimeouts, GenerateCheck::kSkip);
    if (!answer.passed || !stage.router || stage.router->worker_api()) return answer;
    for (const auto& worker : stage.router->workers) {
        const auto health = prober.get(worker.url + "/health", kStatusTimeouts.get);
        if (!health.ok(200))
            return {false,
                    fmt::format("worker {} /health: {}", worker.url,
                                health.status ? fmt::format("HTTP {}", health.status) : health.error),
                    !health.error.empty()};
    }
    answer.answer += fmt::format(", its {} workers' /health 200", stage.router->workers.size());
    return answer;
}

// A MiniLB that answers, with workers that answer, whose last request through it failed: nothing since
// has shown that a request passes prefill → decode, so it is not called ready.
void judge_by_last_request(const LastGateRequest& last, GateAnswer& answer) {
    if (!answer.passed || !last.found || last.passed) return;
    answer.passed = false;
    answer.answer = fmt::format("its last request, by {} {} at {}, failed: {}", last.verb, last.run, last.at,
                                last.failure);
}

}  // namespace

ClusterStatus collect_status(const plan::Plan& plan, exec::Executor& executor, health::HttpProber& prober,
                             const StatusRequest& request) {
    const bool scoped = request.scoped, metrics = request.metrics;
    ClusterStatus status;
    status.cluster = plan.cluster;
    status.probed = request.probe;
    const auto observation = observe_all(plan, executor);
    for (const auto& [name, node_state] : observation.nodes) {
        if (!node_state.transport_error.empty()) status.unreachable[name] = node_state.transport_error;
        // Reachable, but its units could not be listed: as blind as unreachable, never "absent".
        else if (!node_state.inspect_error.empty())
            status.unreachable[name] = "its units could not be listed: " + node_state.inspect_error;
    }

    std::set<std::string> planned;
    std::vector<const plan::Stage*> stages;
    for (const auto& stage : plan.stages) stages.push_back(&stage);
    status.roles.resize(stages.size());
    // The running sglang units whose logs say where they are (ranks >= 1 have nothing else).
    struct LogRead {
        std::size_t stage;
        std::size_t unit;
    };
    std::vector<LogRead> log_reads;
    std::vector<std::vector<std::optional<runtime::LogActivity>>> activity(stages.size());
    for (std::size_t i = 0; i < stages.size(); ++i) {
        activity[i].resize(stages[i]->units.size());
        if (stages[i]->stall_after.count() == 0) continue;
        for (std::size_t u = 0; u < stages[i]->units.size(); ++u) {
            const auto& unit = stages[i]->units[u];
            const auto* found = observation.find(unit.node, unit.name);
            if (found && found->state.running) log_reads.push_back({i, u});
        }
    }
    // With --metrics, each role's Prometheus page.
    std::vector<std::pair<std::size_t, std::string>> scrapes;
    for (std::size_t i = 0; metrics && i < stages.size(); ++i)
        if (const auto url = metrics_url(*stages[i])) scrapes.emplace_back(i, *url);
    // The log reads and scrapes run beside the health probes of the roles, all in parallel: a dead
    // node's timeout should not add up.
    const auto tasks = stages.size() + log_reads.size() + scrapes.size();
    util::for_each_parallel(tasks, util::kEngineFanout, [&](std::size_t task) {
        if (task >= stages.size() + log_reads.size()) {
            const auto& [index, url] = scrapes[task - stages.size() - log_reads.size()];
            status.roles[index].metrics = scrape_metrics(*stages[index], url, prober);
            return;
        }
        if (task >= stages.size()) {
            const auto& read = log_reads[task - stages.size()];
            const auto& stage = *stages[read.stage];
            activity[read.stage][read.unit] = read_log_activity(plan, stage.units[read.unit], executor);
            return;
        }
        const std::size_t i = task;
        const auto& stage = *stages[i];
        auto& role = status.roles[i];
        role.role = stage.role;
        role.kind = config::to_string(stage.kind);
        role.config_role = stage.config_role.empty() ? stage.role : stage.config_role;
        role.group = stage.group;
        role.groups = stage.groups;
        role.gate_url = stage.gate.url;
        // The same checks as start's gate, but for the request through a router unless asked to send it.
        auto probe = request.probe ? probe_gate(stage.gate, prober, kStatusTimeouts)
                                   : probe_without_request(stage, prober);
        if (!request.probe && request.last_request && stage.router && !stage.router->worker_api()) {
            role.last_request = request.last_request(stage.role);
            judge_by_last_request(*role.last_request, probe);
        }
        role.ready = probe.passed;
        role.gate_answer = probe.answer;
        for (const auto& unit : stage.units) {
            auto unit_state = unit_status(stage, unit, observation);
            // Ranks >= 1 serve only a dummy /health: the group's health is rank 0's gate.
            if (unit.rank == 0 && unit_state.state != "absent")
                unit_state.health = role.ready ? "ok" : "failing";
            role.units.push_back(std::move(unit_state));
        }
    });
    for (std::size_t i = 0; i < stages.size(); ++i)
        judge_role_progress(*stages[i], activity[i], status.roles[i]);
    for (const auto& stage : plan.stages)
        for (const auto& unit : stage.units) planned.insert(unit.node + "/" + unit.name);
    for (const auto& [name, node_state] : observation.nodes) {
        for (const auto& observed : node_state.units) {
            // A scoped status (--role/--group) shows its stages only: the other roles' units are
            // neither strays nor its business.
            if (scoped || planned.count(name + "/" + observed.state.unit)) continue;
            UnitStatus stray;
            stray.node = name;
            stray.unit = observed.state.unit;
            auto role = observed.state.labels.find("pdctl.role");
            stray.role = role != observed.state.labels.end() ? role->second : "?";
            stray.state = observed.state.running ? "running" : "exited";
            stray.health = "-";
            stray.config = "not in config";
            status.strays.push_back(stray);
        }
    }

    if (scoped) {  // only the nodes of the stages shown can make them unknown
        std::set<std::string> shown;
        for (const auto& stage : plan.stages)
            for (const auto& unit : stage.units) shown.insert(unit.node);
        for (auto it = status.unreachable.begin(); it != status.unreachable.end();)
            it = shown.count(it->first) ? std::next(it) : status.unreachable.erase(it);
    }

    // "stopped" means no trace at all: an exited unit still has state on its node until `stop` clears it.
    std::size_t running = 0, present = 0, total = 0;
    bool all_ready = true;
    for (const auto& role : status.roles) {
        all_ready = all_ready && role.ready;
        for (const auto& unit : role.units) {
            ++total;
            // A stalled rank runs, but it is not making progress: the cluster is degraded.
            running += unit.state == "running" && !unit.stalled() ? 1 : 0;
            present += unit.state == "running" || unit.state == "pending" || unit.state == "exited" ? 1 : 0;
        }
    }
    if (present == 0 && status.unreachable.empty() && status.strays.empty()) {
        status.state = "stopped";
    } else if (running == total && all_ready && status.strays.empty() && status.unreachable.empty()) {
        status.state = "running";
    } else {
        status.state = "degraded";
    }
    return status;
}

ExitCode status_exit_code(const ClusterStatus& status) {
    if (status.state == "running") return ExitCode::kOk;
    if (status.state == "stopped") return ExitCode::kStopped;
    return ExitCode::kDegraded;
}

}  // namespace pdctl::engine

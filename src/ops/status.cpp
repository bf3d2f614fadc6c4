#include "pdctl/ops/status.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/engine/gate_probe.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/ops/intent_store.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::ops {
namespace {

// The journal's newest part: a start of a large cluster writes a few hundred lines, so this holds the
// last runs, and a status stays one small read away from the coordinator.
constexpr std::size_t kJournalTailBytes = 256u << 10;

// The journal's tail, read once however many MiniLB routers ask (from their probe tasks, in parallel).
class JournalTail {
  public:
    explicit JournalTail(const Deployment& deployment) : deployment_(deployment) {}

    engine::LastGateRequest last_request(const std::string& role) {
        std::call_once(read_, [this] { read(); });
        engine::LastGateRequest last;
        last.error = error_;
        if (!error_.empty()) return last;
        const auto result = state::journal::last_gate_result(text_, role);
        if (!result) return last;
        last.found = true;
        last.run = result->run;
        last.verb = result->verb;
        last.at = result->at;
        last.passed = result->passed;
        last.failure = result->reason;
        const auto now_ms = util::epoch_ms_now();
        if (result->at_epoch_ms > 0) last.age_seconds = std::max(0LL, (now_ms - result->at_epoch_ms) / 1000);
        return last;
    }

  private:
    void read() {
        const auto& cluster = deployment_.cluster;
        const auto& coordinator = state::coordinator_node(cluster);
        const auto answer = deployment_.executor->run(
            coordinator, state::journal::read_command(
                             config::cluster_state_dir(cluster.state_dir, cluster.name), kJournalTailBytes));
        if (!answer.ok())
            error_ = fmt::format("the journal on {} could not be read: {}", coordinator.name,
                                 exec::failure_reason(answer));
        else
            text_ = answer.out;
    }

    const Deployment& deployment_;
    std::once_flag read_;
    std::string text_;
    std::string error_;
};

bool all_absent(const engine::RoleStatus& role) {
    return !role.units.empty() && std::all_of(role.units.begin(), role.units.end(),
                                              [](const auto& unit) { return unit.state == "absent"; });
}

// A router with a worker API whose gate failed because it does not list groups stopped on purpose (a
// scoped stop takes them out): asked again without them, as they are meant to be missing.
void regate_router(const plan::Stage& stage, engine::RoleStatus& role, const std::set<std::string>& stopped,
                   bool probe, health::HttpProber& prober) {
    if (!stage.router || !stage.router->worker_api() || role.ready) return;
    std::set<std::string> left_out;
    for (const auto& worker : stage.router->workers)
        if (stopped.count(worker.stage)) left_out.insert(worker.url);
    if (left_out.empty()) return;
    auto gate = stage.gate;
    for (auto& check : gate.checks)
        std::erase_if(check.workers, [&](const std::string& url) { return left_out.count(url) > 0; });
    const auto answer =
        engine::probe_gate(gate, prober, {std::chrono::seconds(2), std::chrono::seconds(10)},
                           probe ? engine::GenerateCheck::kSend : engine::GenerateCheck::kSkip);
    role.ready = answer.passed;
    role.gate_answer = answer.answer;
}

// Groups whose units are all absent are looked up in the operators' intent (one read, only then): one
// stopped on purpose says so, and does not make the rest of the cluster "degraded".
void mark_stopped_on_purpose(const Deployment& deployment, engine::ClusterStatus& status, bool probe,
                             health::HttpProber& prober, const state::intent::Intent* known) {
    if (std::none_of(status.roles.begin(), status.roles.end(), all_absent)) return;
    const auto read = known ? IntentRead{*known, ""} : read_intent(deployment);
    if (!read.error.empty()) return;  // unknown intent: absent stays absent
    bool any = false;
    for (auto& role : status.roles) {
        const auto* stop = all_absent(role) ? read.intent.stopped_on_purpose(role.role) : nullptr;
        if (!stop) continue;
        role.stopped_on_purpose = fmt::format("by {} at {} ({})", stop->act.who, stop->act.at, stop->command);
        role.bring_back = stop->bring_back;
        any = true;
    }
    std::set<std::string> stopped;
    for (const auto& role : status.roles)
        if (!role.stopped_on_purpose.empty()) stopped.insert(role.role);
    for (auto& role : status.roles)
        if (const auto* stage = deployment.plan.find_stage(role.role); stage && !stopped.empty())
            regate_router(*stage, role, stopped, probe, prober);
    if (!any || status.state != "degraded" || !status.strays.empty() || !status.unreachable.empty()) return;
    // Degraded only by what was stopped on purpose: the rest runs as configured.
    const bool rest_runs = std::all_of(status.roles.begin(), status.roles.end(), [](const auto& role) {
        if (!role.stopped_on_purpose.empty()) return true;
        return role.ready && std::all_of(role.units.begin(), role.units.end(), [](const auto& unit) {
                   return unit.state == "running" && !unit.stalled();
               });
    });
    const bool all_stopped = std::all_of(status.roles.begin(), status.roles.end(),
                                         [](const auto& role) { return !role.stopped_on_purpose.empty(); });
    if (all_stopped)
        status.state = "stopped";
    else if (rest_runs)
        status.state = "running";
}

}  // namespace

engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope,
                                  engine::StatusRequest request, const state::intent::Intent* intent) {
    auto& prober = *deployment.prober;
    const auto scoped = plan::scope_plan(deployment.plan, scope, "status");
    request.scoped = !scope.empty();
    JournalTail journal(deployment);
    if (!request.last_request)
        request.last_request = [&journal](const std::string& role) { return journal.last_request(role); };
    auto status = engine::collect_status(scoped.plan, *deployment.executor, prober, request);
    mark_stopped_on_purpose(deployment, status, request.probe, prober, intent);
    return status;
}

}  // namespace pdctl::ops

#pragma once
// start, stop and restart (also --rolling): the use case behind the verbs that change the cluster. It
// scopes the plan, learns gate deadlines from past starts, wires the preflight and the GPU release wait
// to the nodes, and runs the engine under the deploy lock with every event journaled (mutating_run).

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/engine.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/rolling.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/timeline/start_history.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

enum class EngineVerb { kStart, kStop, kRestart };
// "start", "stop", "restart": the verb as the journal, the lock and the messages name it.
std::string to_string(EngineVerb verb);

// What start, stop and restart are asked, their flags' values already read.
struct EngineRequest {
    EngineVerb verb = EngineVerb::kStart;
    plan::Scope scope;  // --role / --group
    bool keep_on_failure = false;
    bool skip_preflight = false;
    engine::Duration gpu_release_timeout = std::chrono::seconds(60);  // stop, restart
    // restart only: one group at a time, through the router (plan/rolling.hpp)
    bool rolling = false;
    bool allow_router_restart = false;
    // The steps themselves, planned by the caller (a rollout adding, moving or removing a group);
    // the scope is then not used.
    std::optional<plan::RollingPlan> steps;
    engine::Duration drain_grace = std::chrono::seconds(30);
    // restart only: the scope's decode groups replaced behind SGLang's launch gate, the old ranks
    // serving until the new ones joined (Engine::gated_restart); their gate port, or the one after it.
    bool gated = false;
    int gate_port = 30100;
    // start, restart: gate deadlines from past starts (timeline/start_history.hpp)
    timeline::DeadlinePolicy deadline_policy = timeline::DeadlinePolicy::kLearned;
    plan::Duration deadline_floor = std::chrono::minutes(1);
    int transfer_error_limit = 3;  // engine::EngineOptions::transfer_error_limit
    // start only: first stop what holds the planned ports, GPUs or images without being pdctl's
    // (ops/take_over.hpp), each stop journaled.
    bool take_over = false;
    // Stages left out of the run even when the scope's closure takes them along: those the operators
    // stopped on purpose, when heal restarts what is around them.
    std::vector<std::string> leave_stopped;
    // start, restart: the model files read into the page cache first (ops/prewarm.hpp).
    bool prewarm = false;
    // Sees the engine's own events, before the run's reporters do (`start --junit`'s recorder).
    engine::Reporter* recorder = nullptr;
};

// Runs the request; `screen` shows the progress. Throws Failure for what ends the run outside the
// engine (the lock is held elsewhere, a usage error of the scope).
ExitCode run_engine(const Deployment& deployment, const EngineRequest& request, engine::Reporter& screen);

// The same inside a run that already holds the deploy lock and journals (`heal`: its restarts are its
// own journal records, under its own verb): `journaled` sees every event.
ExitCode run_engine_locked(const Deployment& deployment, const EngineRequest& request,
                           engine::Reporter& journaled);

}  // namespace pdctl::ops

#pragma once
// Internal to the engine: a rolling restart, one group at a time through the router's worker API
// (plan/rolling.hpp), so that traffic keeps flowing.

#include <optional>

#include "pdctl/health/router_worker_api.hpp"
#include "run_context.hpp"
#include "starter.hpp"
#include "stopper.hpp"

namespace pdctl::engine {

class RollingRestart {
  public:
    explicit RollingRestart(RunContext& run) : run_(run), starter_(run), stopper_(run) {}

    // Runs the steps in order. Stops at the first step that fails, naming the group and what the router
    // said; a group that was taken out stays out then (`pdctl start` restarts the router with every group).
    ExitCode run(const plan::RollingPlan& rolling);

  private:
    // The steps; each returns an exit code once the run ended.
    std::optional<ExitCode> restart_one(const plan::Stage& stage, TimePoint began);
    std::optional<ExitCode> stop_one(const plan::Stage& stage, TimePoint began);
    std::optional<ExitCode> drain(const plan::RollStep& step, const plan::RollingPlan& rolling,
                                  health::RouterWorkerApi& api, TimePoint began);
    std::optional<ExitCode> add_back(const plan::RollStep& step, const plan::RollingPlan& rolling,
                                     health::RouterWorkerApi& api, TimePoint began);

    RunContext& run_;
    Starter starter_;
    Stopper stopper_;
};

}  // namespace pdctl::engine

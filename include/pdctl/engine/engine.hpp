#pragma once
// Runs a Plan: stages in order, the units of a stage in parallel, a readiness gate between stages,
// fail-fast when a unit dies while its stage waits, and clean-up in reverse order on failure or Ctrl-C.

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/observer.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/report/reporter.hpp"

namespace pdctl::engine {

struct EngineOptions {
    bool keep_on_failure = false;
    // How often a waiting stage checks that its units are still alive. A crash is reported within
    // this interval plus one inspect round trip.
    Duration liveness_interval{std::chrono::milliseconds(500)};
    int log_tail_lines = 20;
    // How often a waiting stage reads the end of each unit's log to report its start-up phase
    // (Reporter::unit_progress): one logs command per unit per interval. 0 disables it.
    Duration progress_interval{std::chrono::seconds(2)};
    int progress_tail_lines = 40;
    Duration probe_timeout{std::chrono::seconds(3)};
};

class Engine {
  public:
    Engine(const plan::Plan& plan, exec::Executor& executor, health::HttpProber& prober, Clock& clock,
           report::Reporter& reporter, EngineOptions options = {});

    // Brings the cluster up. Stages already running from the same config and passing their gate are
    // left alone; the first stage that is not, and every stage after it, is (re)started.
    ExitCode start();
    // Stops every unit of the plan in reverse stage order, then any unit of this cluster found on the
    // nodes that the plan no longer names. Idempotent.
    ExitCode stop();
    ExitCode restart();

  private:
    struct StageResult {
        ExitCode code = ExitCode::kOk;
        report::StageFailure failure;
    };

    bool stage_is_current(const plan::Stage& stage, const Observation& observation);
    StageResult run_stage(const plan::Stage& stage);
    StageResult launch_units(const plan::Stage& stage);
    StageResult wait_for_gate(const plan::Stage& stage, TimePoint began);
    // Returns a failure if a unit of the stage is not running.
    std::optional<StageResult> check_liveness(const plan::Stage& stage);
    void stop_stages(const std::vector<const plan::Stage*>& stages, const std::string& verb);
    std::vector<std::string> log_tail(const plan::Unit& unit);
    const config::Node& node(const std::string& name) const;

    const plan::Plan& plan_;
    exec::Executor& executor_;
    health::HttpProber& prober_;
    Clock& clock_;
    report::Reporter& reporter_;
    EngineOptions options_;
};

// A hint for the operator, from the last log lines of a failed unit (known SGLang/Mooncake failures).
std::string hint_from_log(const std::vector<std::string>& lines);

}  // namespace pdctl::engine

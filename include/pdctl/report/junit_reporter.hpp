#pragma once
// A Reporter decorator for `start --junit` / `restart --junit`: every event goes on unchanged, and each
// stage the run starts becomes two JUnit test cases, its launch (start commands on every node) and its
// gate, with their times and, for the one that failed, the node, the reason and the log tail; a stage
// left running is a skipped case. suite() is the run as one <testsuite> (report/junit.hpp).

#include <chrono>
#include <map>
#include <mutex>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/report/junit.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::report {

class JunitReporter : public engine::Reporter {
  public:
    JunitReporter(engine::Reporter& inner, std::string verb);

    void run_begin(const std::string& verb, const plan::Plan& plan) override { inner_.run_begin(verb, plan); }
    void stage_begin(const std::string& verb, const plan::Stage& stage) override;
    void stage_skipped(const plan::Stage& stage, const std::string& why) override;
    void unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) override;
    void gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                      engine::Duration elapsed) override {
        inner_.gate_waiting(stage, last_answer, elapsed);
    }
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const engine::UnitProgress& progress) override {
        inner_.unit_progress(stage, unit, progress);
    }
    void stage_ready(const plan::Stage& stage, engine::Duration elapsed) override;
    void stage_failed(const engine::StageFailure& failure, engine::Duration elapsed) override;
    void note(const std::string& message) override;
    void run_end(const engine::RunSummary& summary) override;

    // The run so far; a run that ended with a failure no stage carries (preflight, interrupt, a stop
    // that failed) gets a case of its own for it.
    JunitSuite suite() const;
    // Records a failure that ended the run outside the engine (an error the CLI caught).
    void fail_run(const std::string& message);

  private:
    struct Open {
        const plan::Stage* stage = nullptr;
        util::SteadyClock::time_point began;
        std::optional<util::SteadyClock::time_point> launched;  // the last start command returned
        std::size_t units_done = 0;
    };
    std::string classname(const std::string& role) const { return "pdctl." + verb_ + "." + role; }

    engine::Reporter& inner_;
    std::string verb_;
    util::SteadyClock::time_point began_ = util::SteadyClock::now();
    std::string timestamp_;
    mutable std::mutex mutex_;
    std::map<std::string, Open> open_;  // start stages by role, until they end
    std::vector<JunitCase> cases_;
    std::string notes_;
    std::optional<std::string> run_failure_;
    double seconds_ = 0;
};

namespace detail {
struct SilentInner {
    engine::SilentReporter silent;
};
}  // namespace detail

// A JunitReporter that passes the events on to nothing: a recorder beside the run's own reporters
// (ops::EngineRequest::recorder), for `start --junit`.
class JunitRecorder : private detail::SilentInner, public JunitReporter {
  public:
    explicit JunitRecorder(std::string verb) : JunitReporter(silent, std::move(verb)) {}
};

}  // namespace pdctl::report

#include "pdctl/report/junit_reporter.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "pdctl/util/durations.hpp"

namespace pdctl::report {
namespace {

std::string launch_name(const plan::Stage& stage) {
    return stage.units.size() == 1 ? "launch on " + stage.units.front().node
                                   : fmt::format("launch on {} nodes", stage.units.size());
}

std::string hostname() {
    char name[256] = {};
    return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("localhost");
}

}  // namespace

JunitReporter::JunitReporter(engine::Reporter& inner, std::string verb)
    : inner_(inner), verb_(std::move(verb)), timestamp_(junit_timestamp_now()) {}

void JunitReporter::stage_begin(const std::string& verb, const plan::Stage& stage) {
    inner_.stage_begin(verb, stage);
    if (verb != "start") return;  // stop, replace and clean-up stages have no gate to report
    std::lock_guard lock(mutex_);
    open_[stage.role] = {&stage, util::SteadyClock::now(), std::nullopt, 0};
}

void JunitReporter::stage_skipped(const plan::Stage& stage, const std::string& why) {
    inner_.stage_skipped(stage, why);
    std::lock_guard lock(mutex_);
    JunitCase skipped{classname(stage.role), "gate " + stage.gate.why, 0, std::nullopt, "", why, ""};
    cases_.push_back(std::move(skipped));
}

void JunitReporter::unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) {
    inner_.unit_done(verb, unit, detail);
    if (verb != "start") return;
    std::lock_guard lock(mutex_);
    const auto found = open_.find(unit.role);
    if (found == open_.end()) return;
    ++found->second.units_done;
    found->second.launched = util::SteadyClock::now();
}

void JunitReporter::stage_ready(const plan::Stage& stage, engine::Duration elapsed) {
    inner_.stage_ready(stage, elapsed);
    std::lock_guard lock(mutex_);
    const auto found = open_.find(stage.role);
    if (found == open_.end()) return;
    const auto& open = found->second;
    const auto now = util::SteadyClock::now();
    const auto launched = open.launched.value_or(open.began);
    cases_.push_back({classname(stage.role), launch_name(stage), util::to_seconds(launched - open.began),
                      std::nullopt, "", std::nullopt, ""});
    cases_.push_back({classname(stage.role), "gate " + stage.gate.why, util::to_seconds(now - launched),
                      std::nullopt, "", std::nullopt, ""});
    open_.erase(found);
}

void JunitReporter::stage_failed(const engine::StageFailure& failure, engine::Duration elapsed) {
    inner_.stage_failed(failure, elapsed);
    std::lock_guard lock(mutex_);
    const auto found = open_.find(failure.role);
    const auto now = util::SteadyClock::now();
    const std::string message = fmt::format("{} rank {} on {} ({}): {}", failure.role, failure.rank,
                                            failure.node, failure.address, failure.reason);
    std::string text = message + "\n";
    if (!failure.hint.empty()) text += "hint: " + failure.hint + "\n";
    if (!failure.log_tail.empty()) text += "last log lines:\n";
    for (const auto& line : failure.log_tail) text += "  " + line + "\n";
    for (const auto& related : failure.related_logs) {
        text += related.unit + " logged:\n";
        for (const auto& line : related.lines) text += "  " + line + "\n";
    }
    if (found == open_.end()) {
        cases_.push_back({classname(failure.role), "stage", 0, message, text, std::nullopt, ""});
        return;
    }
    const auto& open = found->second;
    const auto& stage = *open.stage;
    // Failed before every start command returned: the launch failed; else the gate did.
    if (open.units_done < stage.units.size()) {
        cases_.push_back({classname(stage.role), launch_name(stage), util::to_seconds(now - open.began),
                          message, text, std::nullopt, ""});
    } else {
        const auto launched = open.launched.value_or(open.began);
        cases_.push_back({classname(stage.role), launch_name(stage), util::to_seconds(launched - open.began),
                          std::nullopt, "", std::nullopt, ""});
        cases_.push_back({classname(stage.role), "gate " + stage.gate.why, util::to_seconds(now - launched),
                          message, text, std::nullopt, ""});
    }
    open_.erase(found);
}

void JunitReporter::note(const std::string& message) {
    inner_.note(message);
    std::lock_guard lock(mutex_);
    notes_ += message + "\n";
}

void JunitReporter::run_end(const engine::RunSummary& summary) {
    inner_.run_end(summary);
    std::lock_guard lock(mutex_);
    seconds_ = util::to_seconds(summary.elapsed);
    if (summary.code != ExitCode::kOk && !summary.message.empty())
        run_failure_ =
            fmt::format("{} (exit {}: {})", summary.message, to_int(summary.code), describe(summary.code));
}

void JunitReporter::fail_run(const std::string& message) {
    std::lock_guard lock(mutex_);
    run_failure_ = message;
}

JunitSuite JunitReporter::suite() const {
    std::lock_guard lock(mutex_);
    JunitSuite suite{"pdctl " + verb_, timestamp_, hostname(), seconds_, cases_, notes_};
    if (suite.seconds == 0) suite.seconds = util::seconds_since(began_);
    // Stages still waiting when the run ended (interrupted): their gate never passed.
    for (const auto& [role, open] : open_)
        suite.cases.push_back({classname(role), "gate " + open.stage->gate.why,
                               util::seconds_since(open.began), "did not pass: the run ended first", "",
                               std::nullopt, ""});
    const bool any_failed = std::any_of(suite.cases.begin(), suite.cases.end(),
                                        [](const JunitCase& test) { return test.failure.has_value(); });
    if (run_failure_ && !any_failed)
        suite.cases.push_back({"pdctl." + verb_, "run", 0, *run_failure_, *run_failure_, std::nullopt, ""});
    return suite;
}

}  // namespace pdctl::report

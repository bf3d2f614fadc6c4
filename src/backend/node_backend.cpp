#include "pdctl/backend/node_backend.hpp"

#include <fmt/format.h>

#include <mutex>

#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::backend {
namespace {

// A command's answer in one line of a progress event: its first line, cut at 200 characters.
std::string answer_line(const std::string& text) {
    auto line = util::first_line(text);
    return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

// A start command's answer: every line, as the kernel cache's line ("cache hit ...") comes before the
// runtime's own ("started ... pid N", a container ID); cut at 300 characters.
std::string start_answer(const std::string& text) {
    std::string joined;
    for (const auto line : util::lines(text)) {
        if (util::trim(line).empty()) continue;
        if (!joined.empty()) joined += "; ";
        joined += line;
    }
    return joined.size() > 300 ? joined.substr(0, 300) + "..." : joined;
}

}  // namespace

engine::StageResult NodeBackend::launch(const plan::Plan& plan, const plan::Stage& stage,
                                        engine::Reporter& reporter, const engine::StartHook& hook) {
    std::mutex mutex;
    std::optional<engine::StageResult> failed;
    util::for_each_parallel(stage.units.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& unit = stage.units[i];
        const auto& n = engine::plan_node(plan, unit.node);
        if (hook) hook(engine::StartMoment::kBeforeCommand, unit);
        const auto answer = executor_.run(n, unit.start);
        if (hook) hook(engine::StartMoment::kAfterCommand, unit);
        std::lock_guard lock(mutex);
        if (answer.ok()) {
            reporter.unit_done("start", unit, start_answer(answer.out));
            return;
        }
        if (failed) return;
        engine::StageResult result;
        result.code = answer.transport_error.empty() ? ExitCode::kStageFailed : ExitCode::kUnreachable;
        result.failure = {stage.role, unit.node, unit.address, unit.rank, "", {}, "", {}};
        if (!answer.transport_error.empty()) {
            result.failure.reason = "unreachable: " + answer.transport_error;
        } else if (answer.timed_out) {
            result.failure.reason = "start command timed out";
        } else {
            result.failure.reason = fmt::format("start command failed (exit {}): {}", answer.exit_code,
                                                answer_line(answer.err.empty() ? answer.out : answer.err));
        }
        failed = result;
    });
    return failed.value_or(engine::StageResult{});
}

std::vector<engine::StopFailure> NodeBackend::stop(const plan::Plan& plan, const plan::Stage& stage,
                                                   const std::string& verb, const std::set<std::string>& skip,
                                                   engine::Reporter& reporter) {
    std::mutex mutex;
    std::vector<engine::StopFailure> failures;
    util::for_each_parallel(stage.units.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& unit = stage.units[i];
        if (skip.count(unit.node)) {
            std::lock_guard lock(mutex);
            reporter.unit_done(verb, unit, "skipped: " + unit.node + " is unreachable");
            return;
        }
        const auto answer = executor_.run(engine::plan_node(plan, unit.node), unit.stop);
        auto failure = engine::stop_failure(
            answer, unit.stop, fmt::format("{} rank {} ({})", unit.role, unit.rank, unit.name), unit.node);
        std::lock_guard lock(mutex);
        if (!failure) {
            reporter.unit_done(verb, unit, util::first_line(answer.out));
            return;
        }
        reporter.unit_done(verb, unit, "stop failed: " + failure->what);
        failures.push_back(std::move(*failure));
    });
    return failures;
}

std::optional<engine::PreflightAnswer> NodeBackend::preflight(const std::vector<std::string>& roles) {
    if (!checks_.preflight) return std::nullopt;
    return checks_.preflight(roles);
}

}  // namespace pdctl::backend

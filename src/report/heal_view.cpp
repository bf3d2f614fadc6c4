#include "pdctl/report/heal_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {
namespace {

const char* mark(const ops::HealStep& step) {
    if (step.action.kind == ops::HealKind::kWait) return "…";
    return step.code == ExitCode::kOk ? "✓" : "✗";
}

}  // namespace

std::string render_heal_text(const ops::HealReport& report) {
    std::string text;
    if (report.steps.empty())
        text = fmt::format("heal: {}: every role runs as configured; nothing to do\n", report.cluster);
    for (const auto& step : report.steps) {
        text += fmt::format("{} {}\n    {}\n", mark(step), ops::describe(step.action), step.outcome);
        for (const auto& line : step.log_tail) text += "    | " + line + "\n";
    }
    for (const auto& note : report.notes) text += "note: " + note + "\n";
    if (report.dry_run) text += "(--dry-run: nothing was touched)\n";
    return text;
}

nlohmann::json heal_to_json(const ops::HealReport& report) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : report.steps) {
        const auto& action = step.action;
        nlohmann::json entry = {{"action", ops::to_string(action.kind)},
                                {"stage", action.stage},
                                {"why", action.why},
                                {"rolling", action.rolling},
                                {"along", action.along},
                                {"tries", action.tries},
                                {"exit_code", to_int(step.code)},
                                {"outcome", step.outcome},
                                {"elapsed_ms", step.elapsed_ms}};
        if (!action.router.empty()) entry["router"] = action.router;
        if (!action.url.empty()) entry["url"] = action.url;
        if (!action.node.empty()) entry["node"] = action.node;
        if (!step.log_tail.empty()) entry["log_tail"] = step.log_tail;
        steps.push_back(std::move(entry));
    }
    return {{"cluster", report.cluster},
            {"dry_run", report.dry_run},
            {"exit_code", to_int(report.code)},
            {"steps", steps},
            {"notes", report.notes}};
}

}  // namespace pdctl::report

#include "pdctl/report/heal_view.hpp"

#include <fmt/format.h>

#include "pdctl/util/wall_clock.hpp"

namespace pdctl::report {
namespace {

const char* mark(const ops::HealStep& step) {
    if (step.action.kind == ops::HealKind::kWait) return "…";
    if (step.action.kind == ops::HealKind::kStoppedOnPurpose) return "-";
    return step.code == ExitCode::kOk ? "✓" : "✗";
}

}  // namespace

std::string render_heal_text(const ops::HealReport& report) {
    std::string text;
    if (const auto& pause = report.paused)
        return fmt::format(
            "heal: {}: paused until {} by {} ({}); nothing was looked at or touched; `pdctl heal resume` "
            "ends the pause\n",
            report.cluster, util::utc_text(pause->until_epoch_ms), pause->act.who, pause->reason);
    if (report.steps.empty())
        text = fmt::format("heal: {}: every role runs as configured; nothing to do\n", report.cluster);
    for (const auto& step : report.steps) {
        // Left stopped on purpose: one line says who, when and how to bring it back; nothing happened.
        if (step.action.kind == ops::HealKind::kStoppedOnPurpose) {
            text += fmt::format("{} {}\n", mark(step), ops::describe(step.action));
            continue;
        }
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
        if (const auto& stop = action.stopped)
            entry["stopped_on_purpose"] = {{"who", stop->act.who},
                                           {"at", stop->act.at},
                                           {"command", stop->command},
                                           {"bring_back", stop->bring_back}};
        steps.push_back(std::move(entry));
    }
    nlohmann::json paused = nullptr;
    if (const auto& pause = report.paused)
        paused = {{"until", util::utc_text(pause->until_epoch_ms)},
                  {"until_epoch_ms", pause->until_epoch_ms},
                  {"who", pause->act.who},
                  {"since", pause->act.at},
                  {"reason", pause->reason}};
    return {{"cluster", report.cluster},
            {"dry_run", report.dry_run},
            {"paused", paused},
            {"exit_code", to_int(report.code)},
            {"steps", steps},
            {"notes", report.notes}};
}

}  // namespace pdctl::report

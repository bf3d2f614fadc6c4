#include "pdctl/report/rollout_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {
namespace {

nlohmann::json steps_json(const plan::RolloutPlan& plan) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : plan.steps)
        steps.push_back({{"group", step.group},
                         {"action", plan::to_string(step.action)},
                         {"running_group", step.running_group},
                         {"canary", step.canary},
                         {"change", step.what}});
    return steps;
}

std::string step_how(const plan::RolloutStep& step, const std::string& router) {
    switch (step.action) {
        case plan::RolloutAction::kReplace:
            return fmt::format(
                "take it out of {}, restart it with the config, wait for its gate, add it back", router);
        case plan::RolloutAction::kAdd:
            return fmt::format("start it, wait for its gate, add it to {}", router);
        case plan::RolloutAction::kRemove:
            return fmt::format("take it out of {}, let its requests finish, stop it, wait for its GPUs",
                               router);
        case plan::RolloutAction::kMove:
            return fmt::format(
                "take {} out of {}, let its requests finish, stop it, wait for its GPUs; start "
                "{}, wait for its gate, add it to {}",
                step.running_group, router, step.group, router);
    }
    return "";
}

}  // namespace

std::string render_rollout_plan_text(const ops::RolloutPreview& preview, const ops::RolloutRequest& request) {
    const auto& plan = preview.plan;
    std::string text = fmt::format("{} through {} ({} of {} groups change; unchanged: {})\n", request.verb,
                                   plan.router, plan.steps.size(), plan.steps.size() + plan.unchanged.size(),
                                   plan.unchanged.empty() ? "none" : util::join(plan.unchanged, ", "));
    for (const auto& group : preview.groups)
        if (group.diff.image_before != group.diff.image_after &&
            std::any_of(plan.steps.begin(), plan.steps.end(),
                        [&](const plan::RolloutStep& step) { return step.group == group.diff.stage; })) {
            text +=
                "  first: pull the new images on the nodes of the groups that change, their IDs checked "
                "alike, "
                "before anything is touched\n";
            break;
        }
    if (plan.downtime) {
        text += fmt::format("  downtime: {}\n", plan.downtime_why);
        for (const auto& why : plan.kv_reasons) text += "    " + why + "\n";
        std::vector<std::string> groups;
        for (const auto& step : plan.steps) groups.push_back(step.group);
        if (plan.topology)
            text += fmt::format(
                "  1. `pdctl start` with the config: {} ({}{}); the downtime is measured\n",
                util::join(groups, ", "),
                plan.relaunched.empty() ? ""
                                        : util::join(plan.relaunched, ", ") + " relaunched with its workers",
                plan.relaunched.empty() ? "what the config dropped stops, what it added starts" : "");
        else
            text += fmt::format("  1. restart {} in place with the config; the downtime is measured\n",
                                util::join(groups, ", "));
    } else {
        text += fmt::format(
            "  0. baseline: {} of load through {} at concurrency {}{}\n",
            util::format_elapsed(request.canary_window), plan.router, request.concurrency,
            request.baseline_file.empty() ? "" : " (read from " + request.baseline_file + " instead)");
        int n = 1;
        for (const auto& step : plan.steps) {
            text += fmt::format("  {}. {} {}{}: {}\n", n++, plan::to_string(step.action), step.group,
                                step.canary ? " (canary)" : "", step.what);
            text += "     " + step_how(step, plan.router) + "\n";
            if (step.canary)
                text += fmt::format(
                    "     gate: {} of the same load; no failed request, no KV failure counter rise, and its "
                    "own "
                    "latency within {:.0f}% of the old groups beside it (else the router's E2E within "
                    "{:.0f}% of the "
                    "baseline)\n",
                    util::format_elapsed(request.canary_window), request.max_regress * 100,
                    request.max_regress * 100);
        }
    }
    text +=
        fmt::format("  on failure: every step already taken is undone, back to the config of run {}{}\n",
                    preview.previous_run.empty() ? "(none kept)" : preview.previous_run,
                    plan.downtime ? " (`pdctl rollback`)" : ", one at a time, out of the router meanwhile");
    return text;
}

nlohmann::json rollout_plan_to_json(const ops::RolloutPreview& preview) {
    const auto& plan = preview.plan;
    return {{"router", plan.router},
            {"steps", steps_json(plan)},
            {"unchanged", plan.unchanged},
            {"downtime", plan.downtime},
            {"downtime_why", plan.downtime_why},
            {"kv_layout_changes", plan.kv_reasons},
            {"previous_run", preview.previous_run},
            {"previous_config", preview.previous_config}};
}

std::string render_rollout_text(const ops::RolloutResult& result) {
    std::string text;
    if (result.canary) {
        const auto& canary = *result.canary;
        text += fmt::format("canary {}: {}\n", canary.group, canary.passed() ? "passed" : "FAILED");
        if (canary.latency)
            text += fmt::format("  {} {:.2f} ms against {:.2f} ms on {} ({:+.0f}%)\n", canary.latency->metric,
                                canary.latency->canary_ms, canary.latency->others_ms,
                                util::join(canary.latency->others, ", "), canary.latency->worse_by * 100);
        else if (!canary.latency_not_judged.empty())
            text += "  own latency not compared: " + canary.latency_not_judged + "\n";
        if (canary.comparison)
            for (const auto& change : canary.comparison->changes)
                text += fmt::format("  {} {}: {:.4g} -> {:.4g} ({:+.0f}% worse){}\n", change.level,
                                    change.metric, change.before, change.now, change.worse_by * 100,
                                    change.regressed ? "  REGRESSED" : "  (reported)");
        for (const auto& problem : canary.problems) text += "  ✗ " + problem + "\n";
    }
    if (result.downtime) text += fmt::format("downtime: {}\n", util::format_elapsed(*result.downtime));
    if (result.rolled_back)
        text += fmt::format("rolled back: {}\n", result.rolled_back_groups.empty()
                                                     ? "nothing"
                                                     : util::join(result.rolled_back_groups, ", "));
    text += fmt::format("{} {}\n", result.code == ExitCode::kOk ? "✓" : "✗", result.message);
    return text;
}

nlohmann::json rollout_to_json(const ops::RolloutResult& result) {
    nlohmann::json document = rollout_plan_to_json(result.preview);
    document["replaced"] = result.replaced;
    document["rolled_back"] = result.rolled_back;
    document["paused"] = result.paused;
    document["rolled_back_groups"] = result.rolled_back_groups;
    document["exit_code"] = static_cast<int>(result.code);
    document["message"] = result.message;
    if (result.downtime) document["downtime_ms"] = result.downtime->count();
    if (result.canary) {
        const auto& canary = *result.canary;
        nlohmann::json item = {
            {"group", canary.group}, {"passed", canary.passed()}, {"problems", canary.problems}};
        if (canary.latency)
            item["latency"] = {
                {"metric", canary.latency->metric},       {"canary_ms", canary.latency->canary_ms},
                {"others_ms", canary.latency->others_ms}, {"others", canary.latency->others},
                {"worse_by", canary.latency->worse_by},   {"regressed", canary.latency->regressed}};
        else
            item["latency_not_judged"] = canary.latency_not_judged;
        document["canary"] = item;
    }
    return document;
}

JunitSuite rollout_suite(const ops::RolloutResult& result, const std::string& verb, double seconds) {
    JunitSuite suite;
    suite.name = "pdctl " + verb;
    suite.timestamp = junit_timestamp_now();
    suite.seconds = seconds;
    const auto classname = "pdctl." + verb;
    if (result.downtime) {
        JunitCase downtime;
        downtime.classname = classname;
        downtime.name = "in place with downtime: " + util::join(result.replaced, ", ");
        downtime.seconds = util::to_seconds(*result.downtime);
        if (result.code != ExitCode::kOk) downtime.failure = result.message;
        suite.cases.push_back(std::move(downtime));
    }
    for (const auto& taken : result.steps) {
        JunitCase step;
        step.classname = classname + "." + taken.step.group;
        step.name =
            fmt::format("{} {}: {}", plan::to_string(taken.step.action), taken.step.group, taken.step.what);
        step.seconds = taken.seconds;
        if (taken.code != ExitCode::kOk) {
            step.failure = fmt::format("{} {} ended with exit {} ({})", plan::to_string(taken.step.action),
                                       taken.step.group, static_cast<int>(taken.code), describe(taken.code));
            step.failure_text = result.message;
        }
        suite.cases.push_back(std::move(step));
        if (!taken.step.canary || !result.canary || result.canary->group != taken.step.group) continue;
        const auto& canary = *result.canary;
        JunitCase gate;
        gate.classname = classname + ".canary";
        gate.name = "canary " + canary.group + ": no failed request, no KV failure, latency within the gate";
        gate.seconds = util::to_seconds(canary.measured.spec.duration);
        gate.output = render_rollout_text(result);
        if (!canary.passed()) {
            gate.failure = util::join(canary.problems, "; ");
            gate.failure_text = gate.output;
        }
        suite.cases.push_back(std::move(gate));
    }
    const bool failed_case = std::any_of(suite.cases.begin(), suite.cases.end(),
                                         [](const JunitCase& one) { return one.failure.has_value(); });
    if (result.code != ExitCode::kOk && !failed_case) {
        // It ended before a step or outside one (refused, the baseline, the pull): one case says why.
        JunitCase ended;
        ended.classname = classname;
        ended.name = verb;
        ended.seconds = seconds;
        ended.failure = result.message.empty() ? describe(result.code) : result.message;
        suite.cases.push_back(std::move(ended));
    }
    if (result.rolled_back) {
        JunitCase back;
        back.classname = classname + ".rollback";
        back.name =
            "rollback: " + (result.rolled_back_groups.empty() ? std::string("nothing to undo")
                                                              : util::join(result.rolled_back_groups, ", "));
        back.seconds = result.rollback_seconds;
        if (result.code != ExitCode::kRolledBack)
            back.failure = fmt::format("the rollback stopped with exit {} ({}): `pdctl diff` shows what runs",
                                       static_cast<int>(result.code), describe(result.code));
        suite.cases.push_back(std::move(back));
    }
    return suite;
}

}  // namespace pdctl::report

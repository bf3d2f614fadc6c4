#include "pdctl/plan/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::plan {
namespace {

bool is_pd(const Stage& stage) {
    return stage.kind == config::RoleKind::Sglang && (stage.mode == "prefill" || stage.mode == "decode");
}

// A flag's value on rank 0's command line ("" when absent).
std::string flag_value(const Stage& stage, const std::string& flag) {
    if (stage.units.empty()) return "";
    for (const auto& [name, value] : parse_command_line(stage.units.front().program.argv).flags)
        if (name == flag) return value.empty() ? "(set)" : value;
    return "";
}

// The end state: every prefill and decode group must agree on each flag of the layout.
void refuse_mixed_layouts(const Plan& wanted) {
    for (const auto& layout : kv_layout_flags()) {
        // An MLA model's latent KV is not split by TP: prefill and decode may run different TP sizes
        // (the runbook's own deployments do), so only a change of it is treated as a layout change.
        if (std::string(layout.flag) == "--tp-size") continue;
        std::map<std::string, std::vector<std::string>> groups_by_value;
        for (const auto& stage : wanted.stages)
            if (is_pd(stage)) groups_by_value[flag_value(stage, layout.flag)].push_back(stage.role);
        if (groups_by_value.size() <= 1) continue;
        std::vector<std::string> sides;
        for (const auto& [value, groups] : groups_by_value)
            sides.push_back(fmt::format("{} {}", util::join(groups, ", "),
                                        value.empty() ? "without " + std::string(layout.flag) : value));
        throw Failure(
            ExitCode::kUsage,
            fmt::format("the change would leave prefill and decode speaking different KV layouts: {} "
                        "{} ({}); nothing was touched",
                        layout.flag, util::join(sides, " but "), layout.why),
            fmt::format("set {} to the same value for every prefill and decode group; the rollout "
                        "then replaces them together",
                        layout.flag));
    }
}

// MiniLB's worker list is on its command line: a P:D change changes it and nothing else.
bool router_workers_only(const Plan& wanted, const GroupDiff& diff) {
    const auto* stage = wanted.find_stage(diff.stage);
    if (diff.change != GroupChange::kChanged || !stage || !stage->router) return false;
    GroupDiff rest = diff;
    rest.flags.clear();
    for (const auto& flag : diff.flags)
        if (flag.flag != "--prefill" && flag.flag != "--decode") rest.flags.push_back(flag);
    return !diff.flags.empty() && !rest.spec_differs();
}

std::vector<std::string> kv_changes_of(const GroupDiff& diff) {
    std::vector<std::string> reasons;
    for (const auto& flag : diff.flags)
        for (const auto& layout : kv_layout_flags())
            if (flag.flag == layout.flag)
                reasons.push_back(fmt::format("{} {}: {}", diff.stage, flag.flag, layout.why));
    if (diff.bootstrap_changed)
        reasons.push_back(diff.stage + " BOOTSTRAP: it installs the Mooncake transfer engine both ends use");
    return reasons;
}

}  // namespace

const std::vector<KvLayoutFlag>& kv_layout_flags() {
    static const std::vector<KvLayoutFlag> flags = {
        {"--page-size", "the KV pages a decode receives are the prefill's pages"},
        {"--kv-cache-dtype", "both ends must read the KV in one element type"},
        {"--disaggregation-transfer-backend", "both ends must speak one transfer engine"},
        {"--model-path", "the KV is the model's: both ends must run one model"},
        {"--tp-size", "a non-MLA model's KV heads are split by TP, so both ends must change it together"},
    };
    return flags;
}

std::string describe_change(const GroupDiff& diff) {
    std::vector<std::string> parts;
    if (diff.image_before != diff.image_after)
        parts.push_back(fmt::format("image {} -> {}", diff.image_before, diff.image_after));
    for (const auto& flag : diff.flags) {
        if (!flag.before_present)
            parts.push_back("add " + flag.flag + (flag.after.empty() || flag.secret ? "" : " " + flag.after));
        else if (!flag.after_present)
            parts.push_back("remove " + flag.flag);
        else
            parts.push_back(flag.secret ? flag.flag + " changed"
                                        : fmt::format("{} {} -> {}", flag.flag, flag.before, flag.after));
    }
    for (const auto& env : diff.env)
        parts.push_back(env.secret
                            ? "env " + env.key + " changed"
                            : fmt::format("env {}={}", env.key, env.after_present ? env.after : "(unset)"));
    if (diff.bootstrap_changed) parts.push_back("BOOTSTRAP changed");
    if (parts.empty()) parts.push_back("a rank's own settings");
    return util::join(parts, "; ");
}

const char* to_string(RolloutAction action) {
    switch (action) {
        case RolloutAction::kReplace:
            return "replace";
        case RolloutAction::kAdd:
            return "add";
        case RolloutAction::kRemove:
            return "remove";
        case RolloutAction::kMove:
            return "move";
    }
    return "?";
}

RolloutPlan rollout_plan(const Plan& wanted, const std::vector<GroupDiff>& changes,
                         const RolloutOptions& options) {
    RolloutPlan rollout;
    std::vector<const GroupDiff*> changed;  // kChanged
    std::vector<const GroupDiff*> moving;   // kAdded, kRemoved, kRoleChanged
    for (const auto& diff : changes) {
        if (diff.change == GroupChange::kSame) {
            rollout.unchanged.push_back(diff.stage);
            continue;
        }
        if (router_workers_only(wanted, diff)) {
            rollout.relaunched.push_back(diff.stage);
            continue;
        }
        (diff.change == GroupChange::kChanged ? changed : moving).push_back(&diff);
        // A removed group is known by the mode it ran in; the others by the config's stage.
        const auto* stage = wanted.find_stage(diff.stage);
        const bool pd = diff.change == GroupChange::kRemoved
                            ? diff.mode_before == "prefill" || diff.mode_before == "decode"
                            : stage && is_pd(*stage);
        if (!pd)
            throw Failure(
                ExitCode::kUsage,
                fmt::format("{} {}, and a rollout replaces prefill and decode groups only", diff.stage,
                            diff.change == GroupChange::kChanged
                                ? "changed"
                                : std::string("is ") + to_string(diff.change)),
                diff.change == GroupChange::kChanged
                    ? "`pdctl restart --role " + diff.stage + "` restarts it with the new config"
                    : std::string("`pdctl start` applies it"));
    }
    if (changed.empty() && moving.empty())
        throw Failure(ExitCode::kUsage, "nothing to roll out: what runs is what the config says",
                      "`pdctl diff` shows what runs against the config");
    refuse_mixed_layouts(wanted);
    rollout.topology = !moving.empty();
    if (!rollout.relaunched.empty() && !rollout.topology)
        throw Failure(
            ExitCode::kUsage,
            fmt::format("{} is launched with other workers than the config's, and no group is "
                        "added, removed or moved",
                        util::join(rollout.relaunched, ", ")),
            "`pdctl restart --role " + rollout.relaunched.front() + "` launches it with the config's");

    // The router that lists the groups this change starts (a removal alone: the one that lists a
    // group of the config).
    std::vector<std::string> listed;
    for (const auto* diff : changed) listed.push_back(diff->stage);
    for (const auto* diff : moving)
        if (diff->change != GroupChange::kRemoved) listed.push_back(diff->stage);
    if (listed.empty())
        for (const auto& stage : wanted.stages)
            if (is_pd(stage)) listed.push_back(stage.role);
    for (const auto& stage : wanted.stages)
        if (stage.router && std::any_of(listed.begin(), listed.end(), [&](const std::string& group) {
                return stage.router->find_worker(group) != nullptr;
            })) {
            rollout.router = stage.role;
            rollout.facts = *stage.router;
        }
    if (rollout.router.empty())
        throw Failure(ExitCode::kUsage,
                      fmt::format("no router lists {}: a rollout goes through one", listed.front()));

    for (const auto* diff : changed) {
        auto reasons = kv_changes_of(*diff);
        rollout.kv_reasons.insert(rollout.kv_reasons.end(), reasons.begin(), reasons.end());
    }
    rollout.together = !rollout.kv_reasons.empty();
    if (!rollout.facts.worker_api()) {
        rollout.downtime = true;
        rollout.downtime_why = fmt::format(
            "{} is MiniLB, whose worker list is fixed at launch: a group cannot leave "
            "it while it restarts{}",
            rollout.router, rollout.topology ? ", nor join it" : "");
    } else if (rollout.together) {
        rollout.downtime = true;
        rollout.downtime_why = "the KV layout changes: every prefill and decode group is replaced at once";
    }
    if (rollout.downtime && !options.allow_downtime)
        throw Failure(ExitCode::kUsage,
                      fmt::format("this change cannot roll with the router serving: {}; nothing was touched",
                                  rollout.downtime_why),
                      rollout.topology
                          ? "--allow-downtime applies it as `pdctl start` does, with the downtime announced "
                            "and measured"
                          : "--allow-downtime replaces the groups in place with the downtime announced "
                            "and measured");

    // The replacements: with the layout changing, every prefill and decode group of the config that
    // runs now.
    std::vector<RolloutStep> replaced;
    if (rollout.together) {
        for (const auto& stage : wanted.stages) {
            const bool starts = std::any_of(moving.begin(), moving.end(), [&](const GroupDiff* diff) {
                return diff->stage == stage.role && diff->change != GroupChange::kRemoved;
            });
            if (!is_pd(stage) || starts) continue;
            const auto found = std::find_if(changed.begin(), changed.end(),
                                            [&](const GroupDiff* diff) { return diff->stage == stage.role; });
            replaced.push_back(
                {stage.role, RolloutAction::kReplace, "", false,
                 found != changed.end() ? describe_change(**found) : "replaced with the KV layout"});
        }
    } else {
        for (const auto* diff : changed)
            replaced.push_back({diff->stage, RolloutAction::kReplace, "", false, describe_change(*diff)});
    }
    std::vector<RolloutStep> added, moved, removed;
    for (const auto* diff : moving) {
        switch (diff->change) {
            case GroupChange::kAdded:
                added.push_back(
                    {diff->stage, RolloutAction::kAdd, "", false,
                     fmt::format("new {} on {}", diff->mode_after, util::join(diff->nodes_after, " "))});
                break;
            case GroupChange::kRemoved:
                removed.push_back(
                    {diff->stage, RolloutAction::kRemove, "", false,
                     fmt::format("{} on {} leaves", diff->mode_before, util::join(diff->nodes_before, " "))});
                break;
            case GroupChange::kRoleChanged:
                moved.push_back(
                    {diff->stage, RolloutAction::kMove, diff->running_stage, false,
                     fmt::format("{} ({}) -> {} ({}) on {}", diff->running_stage, diff->mode_before,
                                 diff->stage, diff->mode_after, util::join(diff->nodes_after, " "))});
                break;
            default:
                break;
        }
    }

    // The canary: a group whose new config serves requests.
    std::string canary = options.canary;
    const auto starts = [](const RolloutStep& step) { return step.action != RolloutAction::kRemove; };
    if (!canary.empty()) {
        std::vector<std::string> names;
        for (const auto* steps : {&replaced, &added, &moved})
            for (const auto& step : *steps) names.push_back(step.group);
        if (std::find(names.begin(), names.end(), canary) == names.end())
            throw Failure(ExitCode::kUsage,
                          fmt::format("--canary {}: not a group this change starts ({})", canary,
                                      names.empty() ? "none" : util::join(names, ", ")));
    } else if (!rollout.downtime) {
        // A decode first: replacing a prefill restarts every decode with it (they keep their connection
        // to the prefill they knew), so a decode canary touches the least.
        for (const auto& step : replaced)
            if (wanted.find_stage(step.group)->mode == "decode") {
                canary = step.group;
                break;
            }
        if (canary.empty() && !replaced.empty()) canary = replaced.front().group;
        for (const auto* steps : {&added, &moved})
            if (canary.empty() && !steps->empty()) canary = steps->front().group;
    }
    for (const auto* steps : {&replaced, &added, &moved, &removed})
        for (const auto& step : *steps) rollout.steps.push_back(step);
    std::stable_partition(rollout.steps.begin(), rollout.steps.end(),
                          [&](const RolloutStep& step) { return starts(step) && step.group == canary; });
    for (auto& step : rollout.steps) step.canary = !canary.empty() && starts(step) && step.group == canary;
    return rollout;
}

}  // namespace pdctl::plan

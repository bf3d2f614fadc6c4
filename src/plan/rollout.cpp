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

RolloutPlan rollout_plan(const Plan& wanted, const std::vector<GroupDiff>& changes,
                         const RolloutOptions& options) {
    RolloutPlan rollout;
    std::vector<const GroupDiff*> changed;
    for (const auto& diff : changes) {
        switch (diff.change) {
            case GroupChange::kSame:
                rollout.unchanged.push_back(diff.stage);
                break;
            case GroupChange::kChanged:
                changed.push_back(&diff);
                break;
            case GroupChange::kAdded:
            case GroupChange::kRemoved:
            case GroupChange::kRoleChanged:
                throw Failure(
                    ExitCode::kUsage,
                    fmt::format("{} is {}: a rollout replaces groups that stay what they are", diff.stage,
                                to_string(diff.change)),
                    "`pdctl start` adds, removes and moves groups (it restarts what depends on them); "
                    "`pdctl diff` shows the whole change");
        }
    }
    if (changed.empty())
        throw Failure(ExitCode::kUsage, "nothing to roll out: what runs is what the config says",
                      "`pdctl diff` compares the two");
    for (const auto* diff : changed) {
        const auto* stage = wanted.find_stage(diff->stage);
        if (!stage || !is_pd(*stage))
            throw Failure(
                ExitCode::kUsage,
                fmt::format("{} changed, and a rollout replaces prefill and decode groups only", diff->stage),
                "`pdctl restart --role " + diff->stage + "` restarts it with the new config");
    }
    refuse_mixed_layouts(wanted);

    // The router that lists the changed groups.
    for (const auto& stage : wanted.stages)
        if (stage.router && stage.router->find_worker(changed.front()->stage)) {
            rollout.router = stage.role;
            rollout.facts = *stage.router;
        }
    if (rollout.router.empty())
        throw Failure(ExitCode::kUsage,
                      fmt::format("no router lists {}: a rollout goes through one", changed.front()->stage));

    for (const auto* diff : changed) {
        auto reasons = kv_changes_of(*diff);
        rollout.kv_reasons.insert(rollout.kv_reasons.end(), reasons.begin(), reasons.end());
    }
    rollout.together = !rollout.kv_reasons.empty();
    if (!rollout.facts.worker_api()) {
        rollout.downtime = true;
        rollout.downtime_why = fmt::format(
            "{} is MiniLB, whose worker list is fixed at launch: a group cannot leave "
            "it while it restarts",
            rollout.router);
    } else if (rollout.together) {
        rollout.downtime = true;
        rollout.downtime_why = "the KV layout changes: every prefill and decode group is replaced at once";
    }
    if (rollout.downtime && !options.allow_downtime)
        throw Failure(
            ExitCode::kUsage,
            fmt::format("this change cannot roll with the router serving: {}; nothing was touched",
                        rollout.downtime_why),
            "--allow-downtime replaces the groups in place with the downtime announced and measured");

    // The groups to replace: with the layout changing, every prefill and decode group.
    std::vector<std::string> groups;
    if (rollout.together) {
        for (const auto& stage : wanted.stages)
            if (is_pd(stage)) groups.push_back(stage.role);
    } else {
        for (const auto* diff : changed) groups.push_back(diff->stage);
    }
    std::string canary = options.canary;
    if (!canary.empty() && std::find(groups.begin(), groups.end(), canary) == groups.end())
        throw Failure(ExitCode::kUsage, fmt::format("--canary {}: not a group this change replaces ({})",
                                                    canary, util::join(groups, ", ")));
    if (canary.empty() && !rollout.downtime) {
        // A decode first: replacing a prefill restarts every decode with it (they keep their connection
        // to the prefill they knew), so a decode canary touches the least.
        for (const auto& group : groups)
            if (wanted.find_stage(group)->mode == "decode") {
                canary = group;
                break;
            }
        if (canary.empty()) canary = groups.front();
    }
    std::stable_partition(groups.begin(), groups.end(),
                          [&](const std::string& group) { return group == canary; });
    for (const auto& group : groups) {
        RolloutStep step;
        step.group = group;
        step.canary = !canary.empty() && group == canary;
        const auto found = std::find_if(changed.begin(), changed.end(),
                                        [&](const GroupDiff* diff) { return diff->stage == group; });
        step.what = found != changed.end() ? describe_change(**found) : "replaced with the KV layout";
        rollout.steps.push_back(std::move(step));
    }
    return rollout;
}

}  // namespace pdctl::plan

// PD019: a flag that pdctl sets, given again in the role's `args:` or EXTRA_ARGS. argparse and gflags
// take the last occurrence, so the profile's copy silently wins over the cluster file: a
// `--tp-size 16` left in EXTRA_ARGS from deploy_pd.sh days beats `tp_size: 32`. Both values are named.
// A flag whose value pdctl sets per rank (--node-rank) is an error: one role-wide value is wrong for
// every rank but one.

#include <algorithm>
#include <filesystem>

#include "pdctl/plan/generated_flags.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

// Flags the router takes once per worker: more of them in args add workers rather than replace one.
bool repeatable(const std::string& flag) {
    return flag == "--prefill" || flag == "--decode" || flag == "--worker-urls";
}

struct GivenFlag {
    std::string value;
    bool in_extra_args = false;
};

// The last occurrence of `flag` in the role's own args, which is the one the server keeps.
std::optional<GivenFlag> given(const config::Role& role, const std::string& flag) {
    std::optional<GivenFlag> last;
    for (std::size_t i = 0; i < role.args.size(); ++i) {
        const auto& word = role.args[i];
        const bool in_extra = i >= role.extra_args_at;
        if (word == flag)
            last = GivenFlag{i + 1 < role.args.size() ? role.args[i + 1] : "", in_extra};
        else if (word.rfind(flag + "=", 0) == 0)
            last = GivenFlag{word.substr(flag.size() + 1), in_extra};
    }
    return last;
}

std::string where_given(const config::Role& role, const GivenFlag& flag) {
    if (!flag.in_extra_args) return "its `args:`";
    const auto& where = role.extra_args_where;
    return "EXTRA_ARGS (" + std::filesystem::path(where.file).filename().string() + ":" +
           std::to_string(where.line) + ")";
}

// The generated value of `flag` differs between ranks of the stage (--node-rank).
bool per_rank(const plan::Stage& stage, const config::Role& role, const std::string& flag) {
    std::vector<std::string> values;
    for (const auto& unit : stage.units)
        for (const auto& generated : plan::generated_flags(unit, role))
            if (generated.name == flag) values.push_back(generated.value);
    return std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end();
}

}  // namespace

void check_flag_given_twice(const RuleInput& input, FindingSink& sink) {
    for (const auto& stage : input.plan.stages) {
        const auto* role = input.cluster.find_role(stage.role);
        if (!role || role->kind == config::RoleKind::Generic || stage.units.empty()) continue;
        std::vector<std::string> reported;
        for (const auto& generated : plan::generated_flags(stage.units.front(), *role)) {
            if (repeatable(generated.name) ||
                std::find(reported.begin(), reported.end(), generated.name) != reported.end())
                continue;
            const auto mine = given(*role, generated.name);
            if (!mine) continue;
            reported.push_back(generated.name);
            const bool rank_bound = per_rank(stage, *role, generated.name);
            const auto shown_value = [](const std::string& value) {
                return value.empty() ? "(no value)" : value;
            };
            std::string message = role->name + " gives " + generated.name + " " + shown_value(mine->value) +
                                  " in " + where_given(*role, *mine) + ", and pdctl sets it to " +
                                  shown_value(generated.value) + (rank_bound ? " on rank 0" : "") + " from " +
                                  plan::flag_source(role->kind, generated.name) +
                                  "; the server takes the last: " + shown_value(mine->value);
            if (rank_bound) message += " on every rank, which each need their own";
            auto& finding =
                sink.add(rank_bound ? Severity::Error : Severity::Warn, role->name, std::move(message),
                         "remove " + generated.name + " from " +
                             (mine->in_extra_args ? "EXTRA_ARGS" : "`args:`") + " and set " +
                             plan::flag_source(role->kind, generated.name) + " in the cluster file instead");
            finding.location = mine->in_extra_args ? role->extra_args_where : role->where;
        }
    }
}

}  // namespace pdctl::lint

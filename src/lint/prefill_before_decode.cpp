// PD007: runbook rule 2 — prefill starts before decode (prefill registers its bootstrap first). pdctl
// derives that order, but an explicit depends_on replaces it; a decode that does not depend,
// directly or through other roles, on its prefills then starts in file order, possibly first.

#include <algorithm>
#include <set>

#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

// Every role `role` waits for, directly or transitively.
std::set<std::string> ancestors(const config::Cluster& cluster, const std::string& role) {
    std::set<std::string> seen;
    std::vector<std::string> pending{role};
    while (!pending.empty()) {
        const auto* current = cluster.find_role(pending.back());
        pending.pop_back();
        if (!current) continue;
        for (const auto& dep : current->depends_on)
            if (seen.insert(dep).second) pending.push_back(dep);
    }
    return seen;
}

// The prefills a decode is paired with by the routers; every prefill when no router names it.
std::vector<std::string> partner_prefills(const config::Cluster& cluster, const config::Role& decode) {
    std::set<std::string> partners;
    for (const auto& router : cluster.roles) {
        if (router.kind != config::RoleKind::Router) continue;
        if (std::find(router.decode_roles.begin(), router.decode_roles.end(), decode.name) ==
            router.decode_roles.end())
            continue;
        partners.insert(router.prefill_roles.begin(), router.prefill_roles.end());
    }
    std::vector<std::string> names;
    for (const auto& role : cluster.roles) {
        const bool partner = partners.empty() ? detail::is_sglang(role, config::SglangMode::Prefill)
                                              : partners.count(role.name) > 0;
        if (partner) names.push_back(role.name);
    }
    return names;
}

}  // namespace

void check_prefill_before_decode(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (!detail::is_sglang(role, config::SglangMode::Decode)) continue;
        const auto waits_for = ancestors(input.cluster, role.name);
        std::vector<std::string> missing;
        for (const auto& prefill : partner_prefills(input.cluster, role))
            if (!waits_for.count(prefill)) missing.push_back(prefill);
        if (missing.empty()) continue;
        const std::string depends =
            role.depends_on.empty() ? "[]" : "[" + detail::join(role.depends_on) + "]";
        std::string order;
        for (const auto& prefill : missing) {
            const int decode_stage = detail::stage_number(input.plan, role.name);
            const int prefill_stage = detail::stage_number(input.plan, prefill);
            if (decode_stage && prefill_stage && decode_stage < prefill_stage) {
                order = "; the plan starts it first (stage " + std::to_string(decode_stage) + ", " + prefill +
                        " is stage " + std::to_string(prefill_stage) + ")";
                break;
            }
        }
        sink.add(Severity::Error, role.name,
                 role.name + " does not wait for " + detail::join(missing) + ": its depends_on " + depends +
                     " does not lead to " + (missing.size() == 1 ? "it" : "them") + order,
                 "remove depends_on from " + role.name + " (pdctl then derives prefill -> decode) or add " +
                     detail::join(missing) + " to it")
            .location = role.where;
    }
}

}  // namespace pdctl::lint

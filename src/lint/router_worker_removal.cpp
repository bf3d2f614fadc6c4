// PD021: SMG removing unhealthy workers itself, which `pdctl heal` undoes. With
// `--remove-unhealthy-workers` (alias `--worker-auto-recovery`; on by default in SMG's newest code when
// `--service-discovery` is on) SMG drops a worker that reaches Failed from its registry. `pdctl heal`
// adds every configured group the router does not list back to it, and itself removes and re-adds a
// worker SMG marked failed after restarting its group; so the two act on the same worker in turn, and
// a worker heal just added can be dropped again while its group still loads. Sources: lightseekorg/smg
// model_gateway/src/main.rs (`remove_unhealthy_workers`, visible alias `worker-auto-recovery`),
// bindings/python/src/smg/router_args.py, docs/concepts/reliability/health-checks.md.

#include "pdctl/lint/argv.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

enum class Removal { Unsaid, On, Off };

// The last word about removal in the router's own args, as SMG reads it: the bare flag or =true turns
// it on; =false, a following `false`, or the launcher's --no- form turns it off.
Removal removal_in(const std::vector<std::string>& args, std::string& spelled) {
    Removal said = Removal::Unsaid;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& word = args[i];
        for (const std::string name : {"--remove-unhealthy-workers", "--worker-auto-recovery"}) {
            const std::string negated = "--no-" + name.substr(2);
            if (word == negated) {
                said = Removal::Off;
            } else if (word == name || word == name + "=true") {
                const bool off = word == name && i + 1 < args.size() && args[i + 1] == "false";
                said = off ? Removal::Off : Removal::On;
                if (!off) spelled = word;
            } else if (word == name + "=false") {
                said = Removal::Off;
            }
        }
    }
    return said;
}

}  // namespace

void check_router_worker_removal(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Router) continue;
        std::string spelled;
        auto removal = removal_in(role.args, spelled);
        if (removal == Removal::Unsaid && role.router_impl == config::RouterImpl::Smg &&
            flag_set(role.args, {"--service-discovery"})) {
            removal = Removal::On;
            spelled = "--service-discovery (which turns --remove-unhealthy-workers on unless it is set off)";
        }
        if (removal != Removal::On) continue;
        sink.add(Severity::Warn, role.name,
                 detail::router_label(role.name) + " removes the workers it marks failed (" + spelled +
                     "), and `pdctl heal` adds every configured group back to the router and removes and "
                     "re-adds a failed worker itself after restarting its group: with heal running the two "
                     "undo each other",
                 "if pdctl heal (or its timer) runs, leave worker removal to it: drop " +
                     std::string(spelled.rfind("--service", 0) == 0 ? "--service-discovery or pass "
                                                                      "--no-remove-unhealthy-workers"
                                                                    : spelled) +
                     "; keep it only where nothing re-adds workers but SMG's own service discovery")
            .location = role.where;
    }
}

}  // namespace pdctl::lint

#pragma once
// One rank's argv and environment, as the plan has them, turned into what a Kubernetes pod template
// can carry for every rank of its group at once: the rank-specific words become references to the
// variables the workload controller sets in each pod ($(LWS_WORKER_INDEX), the leader's DNS name,
// the pod's IP), secrets become Secret references, and every other `$` is escaped so that Kubernetes'
// own $(VAR) expansion leaves the words exactly as pdctl would run them.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pdctl/export/yaml_text.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter::detail {

// The pod's own IP (the downward API's status.podIP; with hostNetwork, the node's): first in every
// container's env, so that later values and the args can refer to it.
inline constexpr const char* kPodIpVar = "PDCTL_POD_IP";

// What a group's controller names its variables: LWS_LEADER_ADDRESS/LWS_WORKER_INDEX (LeaderWorkerSet)
// or RBG_LWP_LEADER_ADDRESS/RBG_LWP_WORKER_INDEX (RoleBasedGroup's leaderWorkerPattern). Empty for
// roles that are not SGLang groups.
struct GroupVars {
    std::string leader_address;
    std::string worker_index;
};

// What the templating of one stage needs besides the plan.
struct TemplateInput {
    GroupVars vars;
    // Router stages: each worker URL of the plan (http://<rank-0 address>:<port>) → the group's leader
    // as Kubernetes names it.
    std::map<std::string, std::string> worker_urls;
    std::string secret_name;  // the Secret that holds every secret value
};

// A unit's program as a template. `argv` is the launch argv (BOOTSTRAP wrapper included,
// runtime::launch_argv); `env` the container's env list, PDCTL_POD_IP first.
struct TemplatedProgram {
    std::vector<std::string> argv;
    Tree env = Tree::array();
    std::set<std::string> secret_keys;  // keys the Secret must hold
};

// `$` doubled wherever Kubernetes would read it as the start of `$$` or `$(`: "$(x)" → "$$(x)",
// "$$" → "$$$" + "$" ... so that after expansion the text is exactly `text` again.
std::string escape_dollars(const std::string& text);

TemplatedProgram template_unit(const plan::Stage& stage, const plan::Unit& unit, const TemplateInput& input);

// Words of `argv` and env values that still name a node's address (management or compute) after
// templating: pdctl addresses mean nothing inside Kubernetes, so the export says where they are.
std::vector<std::string> leftover_addresses(const TemplatedProgram& program,
                                            const std::vector<config::Node>& nodes);

}  // namespace pdctl::exporter::detail

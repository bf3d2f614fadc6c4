#include "pdctl/export/k8s_manifests.hpp"

#include <algorithm>
#include <set>

#include "k8s_names.hpp"
#include "k8s_pod.hpp"
#include "pdctl/export/yaml_text.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::exporter {
namespace {

using detail::StageNames;

constexpr const char* kLwsApi = "leaderworkerset.x-k8s.io/v1";  // kubernetes-sigs/lws v0.10.0
constexpr const char* kRbgApi = "workloads.x-k8s.io/v1alpha2";  // sgl-project/rbg v0.7.0
// The variables each controller sets in every pod of a group (LWS api/leaderworkerset/v1
// leaderworkerset_types.go; RBG api/workloads/constants/env.go).
const detail::GroupVars kLwsVars{"LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX"};
const detail::GroupVars kRbgVars{"RBG_LWP_LEADER_ADDRESS", "RBG_LWP_WORKER_INDEX"};

// Notes by text, with the roles they concern, in the order first seen: one line for the prefill and
// the decode group that share a profile.
class Notes {
  public:
    void add(const std::string& role, const std::string& text) {
        auto it =
            std::find_if(items_.begin(), items_.end(), [&](const auto& item) { return item.first == text; });
        if (it == items_.end()) {
            items_.push_back({text, {role}});
        } else if (std::find(it->second.begin(), it->second.end(), role) == it->second.end()) {
            it->second.push_back(role);
        }
    }
    std::vector<std::string> lines() const {
        std::vector<std::string> out;
        for (const auto& [text, roles] : items_) out.push_back(util::join(roles) + ": " + text);
        return out;
    }

  private:
    std::vector<std::pair<std::string, std::vector<std::string>>> items_;
};

struct Build {
    const config::Cluster& cluster;
    const plan::Plan& plan;
    const K8sOptions& options;
    std::map<std::string, StageNames> names;
    std::string secret_name;
    std::set<std::string> secret_keys;
    Notes notes;
};

Tree labels_of(const Build& build, const StageNames& names) {
    return Tree{{"app.kubernetes.io/part-of", build.cluster.name},
                {"app.kubernetes.io/component", names.role}};
}

Tree metadata(const Build& build, const std::string& name, const Tree& labels) {
    Tree meta = {{"name", name}};
    if (!build.options.kube_namespace.empty()) meta["namespace"] = build.options.kube_namespace;
    meta["labels"] = labels;
    return meta;
}

// Where the router reaches a group's rank 0 under each format: LWS's leader pod through the group's
// headless Service (<lws>-0.<lws>), RBG's leader-only headless Service of the role (s-<rbg>-<role>).
std::string leader_host(const Build& build, const StageNames& names) {
    if (build.options.format == K8sFormat::Lws) return names.object + "-0." + names.object;
    return "s-" + build.cluster.name + "-" + names.role;
}

std::map<std::string, std::string> worker_urls(const Build& build, const plan::Stage& stage) {
    std::map<std::string, std::string> urls;
    if (!stage.router) return urls;
    for (const auto& worker : stage.router->workers) {
        const auto port = worker.url.substr(worker.url.rfind(':'));
        urls[worker.url] = "http://" + leader_host(build, build.names.at(worker.stage)) + port;
    }
    return urls;
}

detail::PodOutput pod_for(Build& build, const plan::Stage& stage) {
    const auto& names = build.names.at(stage.role);
    detail::PodInput input;
    input.stage = &stage;
    input.role = &detail::role_of(build.cluster, stage);
    input.image = names.image;
    input.whole_command = names.whole_command;
    if (stage.kind == config::RoleKind::Sglang)
        input.templating.vars = build.options.format == K8sFormat::Lws ? kLwsVars : kRbgVars;
    input.templating.worker_urls = worker_urls(build, stage);
    input.templating.secret_name = build.secret_name;
    input.labels = labels_of(build, names);
    input.nodes = &build.cluster.nodes;
    auto pod = detail::pod_template(input);
    build.secret_keys.insert(pod.secret_keys.begin(), pod.secret_keys.end());
    for (const auto& note : pod.notes) build.notes.add(stage.role, note);
    return pod;
}

Tree service_ports(const Tree& pod) {
    Tree ports = Tree::array();
    for (const auto& port : pod["spec"]["containers"][0]["ports"])
        ports.push_back({{"name", port["name"]},
                         {"port", port["containerPort"]},
                         {"targetPort", port["containerPort"]},
                         {"protocol", "TCP"}});
    return ports;
}

// --format lws: a LeaderWorkerSet per SGLang group; a Deployment and a Service for the other roles.
std::vector<Tree> lws_objects(Build& build) {
    std::vector<Tree> objects;
    for (const auto& stage : build.plan.stages) {
        const auto& names = build.names.at(stage.role);
        const auto labels = labels_of(build, names);
        auto pod = pod_for(build, stage);
        const int ranks = static_cast<int>(stage.units.size());
        if (stage.kind == config::RoleKind::Sglang) {
            // LeaderCreated: the workers start with the leader. LeaderReady would deadlock: rank 0
            // opens its port only after every rank joined (SGLang engine.py).
            objects.push_back({{"apiVersion", kLwsApi},
                               {"kind", "LeaderWorkerSet"},
                               {"metadata", metadata(build, names.object, labels)},
                               {"spec",
                                {{"replicas", 1},
                                 {"startupPolicy", "LeaderCreated"},
                                 {"networkConfig", {{"subdomainPolicy", "Shared"}}},
                                 // One rank failing restarts the whole group, as a crashed rank fails pdctl's
                                 // stage: the survivors cannot rejoin a torch.distributed group on their own.
                                 {"leaderWorkerTemplate",
                                  {{"size", ranks},
                                   {"restartPolicy", "RecreateGroupOnPodRestart"},
                                   {"workerTemplate", pod.pod_template}}}}}});
            continue;
        }
        objects.push_back({{"apiVersion", "apps/v1"},
                           {"kind", "Deployment"},
                           {"metadata", metadata(build, names.object, labels)},
                           {"spec",
                            {{"replicas", ranks},
                             {"selector", {{"matchLabels", labels}}},
                             // Stop, then start, as pdctl does: a second copy would fight over the
                             // node's ports (hostNetwork).
                             {"strategy", {{"type", "Recreate"}}},
                             {"template", pod.pod_template}}}});
        objects.push_back({{"apiVersion", "v1"},
                           {"kind", "Service"},
                           {"metadata", metadata(build, names.object, labels)},
                           {"spec", {{"selector", labels}, {"ports", service_ports(pod.pod_template)}}}});
    }
    return objects;
}

// --format rbg: one RoleBasedGroup; each stage a role, its ready edges its dependencies.
std::vector<Tree> rbg_objects(Build& build) {
    Tree roles = Tree::array();
    for (const auto& stage : build.plan.stages) {
        const auto& names = build.names.at(stage.role);
        auto pod = pod_for(build, stage);
        Tree role = {{"name", names.role}};
        Tree dependencies = Tree::array();
        for (const auto& edge : stage.edges) {
            if (edge.kind == plan::GateKind::Started) {
                build.notes.add(stage.role, "does not wait for " + edge.role +
                                                " (gate: started): RoleBasedGroup creates the two together");
                continue;
            }
            if (edge.kind == plan::GateKind::Bootstrap)
                build.notes.add(stage.role,
                                "waits for " + edge.role +
                                    " to be ready, not only for its bootstrap server (a RoleBasedGroup "
                                    "dependency is readiness)");
            dependencies.push_back(build.names.at(edge.role).role);
        }
        role["replicas"] = stage.kind == config::RoleKind::Sglang ? 1 : static_cast<int>(stage.units.size());
        if (!dependencies.empty()) role["dependencies"] = dependencies;
        if (stage.kind == config::RoleKind::Sglang) {
            // LeaderOnly: the role's headless Service resolves to rank 0 alone, which is what the
            // router and decode's bootstrap lookups must reach.
            role["leaderWorkerPattern"] = {{"size", static_cast<int>(stage.units.size())},
                                           {"sharedServiceSelection", "LeaderOnly"},
                                           {"restartPolicy", "RecreateRoleInstanceOnPodRestart"},
                                           {"template", pod.pod_template}};
        } else {
            role["standalonePattern"] = {{"template", pod.pod_template}};
        }
        role["servicePorts"] = service_ports(pod.pod_template);
        roles.push_back(role);
    }
    Tree labels = {{"app.kubernetes.io/part-of", build.cluster.name}};
    return {Tree{{"apiVersion", kRbgApi},
                 {"kind", "RoleBasedGroup"},
                 {"metadata", metadata(build, build.cluster.name, labels)},
                 {"spec", {{"roles", roles}}}}};
}

std::string header(const Build& build, const std::vector<std::string>& notes) {
    const bool lws = build.options.format == K8sFormat::Lws;
    std::string order;
    for (const auto& stage : build.plan.stages) order += (order.empty() ? "" : " -> ") + stage.role;
    std::string text = "# Kubernetes manifests for cluster " + build.cluster.name + " (" +
                       build.plan.config_path + ", plan " + build.plan.fingerprint +
                       "): pdctl export k8s --format " + (lws ? "lws" : "rbg") + ".\n";
    text += "# What maps to what, and what pdctl over SSH does that these do not: docs/kubernetes.md.\n";
    text +=
        "# Every pod uses its node's network (hostNetwork): Mooncake and NCCL need the node's RDMA NICs.\n";
    if (lws)
        text += "# Stage order " + order + " is not enforced: these objects start together.\n";
    else
        text += "# Stage order " + order + ": each role's dependencies.\n";
    if (build.secret_keys.empty()) {
        text += "# Secrets: none.\n";
    } else {
        text += "# Secret " + build.secret_name + " (create it first) must hold the keys: " +
                util::join({build.secret_keys.begin(), build.secret_keys.end()}) + ".\n";
    }
    for (const auto& note : notes) text += "# note: " + note + "\n";
    return text;
}

}  // namespace

std::optional<K8sFormat> parse_k8s_format(const std::string& text) {
    if (text == "lws") return K8sFormat::Lws;
    if (text == "rbg") return K8sFormat::Rbg;
    return std::nullopt;
}

K8sManifests k8s_manifests(const config::Cluster& cluster, const plan::Plan& plan,
                           const K8sOptions& options) {
    Build build{cluster,
                plan,
                options,
                detail::stage_names(cluster, plan, options),
                options.secret_name.empty() ? cluster.name + "-secrets" : options.secret_name,
                {},
                {}};
    const auto objects = options.format == K8sFormat::Lws ? lws_objects(build) : rbg_objects(build);
    K8sManifests out;
    out.notes = build.notes.lines();
    out.yaml = header(build, out.notes);
    for (const auto& object : objects) out.yaml += "---\n" + to_yaml(object);
    return out;
}

}  // namespace pdctl::exporter

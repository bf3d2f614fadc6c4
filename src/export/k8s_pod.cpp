#include "k8s_pod.hpp"

#include "k8s_runtime_options.hpp"
#include "pdctl/config/diagnostics.hpp"
#include "pdctl/export/k8s_probes.hpp"
#include "pdctl/plan/role_kinds.hpp"

namespace pdctl::exporter::detail {
namespace {

Tree port(const std::string& name, int number) {
    return Tree{{"name", name}, {"containerPort", number}, {"protocol", "TCP"}};
}

// What each kind listens on (plan/role_kinds.hpp's defaults). Under hostNetwork a containerPort is
// also a host port: the scheduler then keeps two pods that bind the same port off one node.
Tree container_ports(const config::Role& role) {
    Tree ports = Tree::array();
    const int service = plan::service_port(role);
    switch (role.kind) {
        case config::RoleKind::Sglang:
            ports.push_back(port("http", service));
            if (role.mode == config::SglangMode::Prefill)
                ports.push_back(port("bootstrap", role.effective_bootstrap_port()));
            if (role.nodes.size() > 1)
                ports.push_back(
                    port("dist-init", role.dist_init_port ? role.dist_init_port : plan::kDistInitPort));
            break;
        case config::RoleKind::MooncakeMaster:
            ports.push_back(port("rpc", service));
            ports.push_back(
                port("metrics", role.metrics_port ? role.metrics_port : plan::kMooncakeMetricsPort));
            break;
        case config::RoleKind::Router:
        case config::RoleKind::Generic:
            if (service) ports.push_back(port("http", service));
            break;
    }
    return ports;
}

// The first word where two ranks' templates differ, for the error.
std::string first_difference(const TemplatedProgram& a, const TemplatedProgram& b) {
    for (std::size_t i = 0; i < std::min(a.argv.size(), b.argv.size()); ++i)
        if (a.argv[i] != b.argv[i])
            return "argument " + std::to_string(i) + ": `" + a.argv[i] + "` vs `" + b.argv[i] + "`";
    if (a.argv.size() != b.argv.size()) return "the number of arguments";
    return "the environment";
}

void check_same_template(const PodInput& input, const std::vector<TemplatedProgram>& ranks) {
    for (std::size_t rank = 1; rank < ranks.size(); ++rank) {
        if (ranks[rank].argv == ranks[0].argv && ranks[rank].env == ranks[0].env) continue;
        config::Diagnostics diagnostics;
        diagnostics.error(input.role->where, "roles." + input.role->entry_name(),
                          "rank " + std::to_string(rank) + " of " + input.stage->role +
                              " runs differently from rank 0 beyond its rank and addresses (" +
                              first_difference(ranks[0], ranks[rank]) +
                              "): one pod template cannot hold both",
                          "keep rank-specific values out of args and env; pdctl sets --node-rank, "
                          "--dist-init-addr and SGLANG_HOST_IP itself");
        throw config::ConfigError(diagnostics.items());
    }
}

Tree security_context(const PodSettings& settings) {
    Tree context = Tree::object();
    if (settings.privileged) context["privileged"] = true;
    if (!settings.capabilities.empty()) context["capabilities"] = {{"add", settings.capabilities}};
    return context;
}

}  // namespace

PodOutput pod_template(const PodInput& input) {
    const auto& stage = *input.stage;
    const auto& role = *input.role;
    PodOutput out;

    std::vector<TemplatedProgram> ranks;
    for (const auto& unit : stage.units) ranks.push_back(template_unit(stage, unit, input.templating));
    check_same_template(input, ranks);
    const auto& program = ranks.front();
    out.secret_keys = program.secret_keys;
    for (const auto& leftover : leftover_addresses(program, *input.nodes))
        out.notes.push_back(leftover + ", which pods do not have: change it to a Kubernetes name");

    const auto settings = pod_settings(stage);
    out.notes.insert(out.notes.end(), settings.notes.begin(), settings.notes.end());
    auto probes = stage_probes(stage);
    out.notes.insert(out.notes.end(), probes.notes.begin(), probes.notes.end());

    Tree container;
    container["name"] = config::to_string(role.kind);
    container["image"] = input.image;
    container[input.whole_command ? "command" : "args"] = program.argv;
    container["env"] = program.env;
    container["ports"] = container_ports(role);
    if (role.kind == config::RoleKind::Sglang) {
        if (role.gpus_per_node > 0) {
            const Tree gpus = {{"nvidia.com/gpu", std::to_string(role.gpus_per_node)}};
            container["resources"] = {{"requests", gpus}, {"limits", gpus}};
        } else {
            out.notes.push_back("no gpus_per_node in the config: no nvidia.com/gpu request");
        }
    }
    if (auto context = security_context(settings); !context.empty()) container["securityContext"] = context;
    container["startupProbe"] = std::move(probes.startup);
    container["readinessProbe"] = std::move(probes.readiness);
    container["livenessProbe"] = std::move(probes.liveness);

    Tree mounts = Tree::array();
    Tree volumes = Tree::array();
    if (settings.shm) {
        mounts.push_back({{"name", "dshm"}, {"mountPath", "/dev/shm"}});
        Tree empty_dir = {{"medium", "Memory"}};
        if (!settings.shm_size.empty()) empty_dir["sizeLimit"] = settings.shm_size;
        volumes.push_back({{"name", "dshm"}, {"emptyDir", empty_dir}});
    }
    for (const auto& mount : settings.mounts) {
        Tree volume_mount = {{"name", mount.name}, {"mountPath", mount.mount_path}};
        if (mount.read_only) volume_mount["readOnly"] = true;
        mounts.push_back(volume_mount);
        volumes.push_back({{"name", mount.name}, {"hostPath", {{"path", mount.host_path}}}});
    }
    if (!mounts.empty()) container["volumeMounts"] = mounts;

    Tree spec;
    // Mooncake's transfer engine and NCCL need the node's RDMA NICs and its address: the pod shares
    // the node's network, as `docker run --network host` did. Cluster DNS still resolves the leader's
    // name (ClusterFirstWithHostNet; the default would use the node's resolv.conf).
    spec["hostNetwork"] = true;
    spec["dnsPolicy"] = "ClusterFirstWithHostNet";
    if (settings.host_ipc) spec["hostIPC"] = true;
    spec["terminationGracePeriodSeconds"] = stage.runtime.stop_grace_seconds;
    spec["containers"] = Tree::array({container});
    if (!volumes.empty()) spec["volumes"] = volumes;
    out.pod_template = {{"metadata", {{"labels", input.labels}}}, {"spec", spec}};
    return out;
}

}  // namespace pdctl::exporter::detail

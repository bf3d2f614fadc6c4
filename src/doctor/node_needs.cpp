// What the plan asks of each node, read from the plan's units (final argv and env) and their runtime,
// so the live checks look at exactly what `start` would run.

#include <filesystem>

#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/lint/argv.hpp"
#include "pdctl/push/push_plan.hpp"
#include "text.hpp"

namespace pdctl::doctor {
namespace {

// The env a unit's program sees: the plan's env, then `-e KEY=VALUE` container options (later wins).
std::vector<std::pair<std::string, std::string>> unit_env(const plan::Stage& stage, const plan::Unit& unit) {
    std::vector<std::pair<std::string, std::string>> env;
    for (const auto& entry : unit.program.env) env.emplace_back(entry.key, entry.value);
    if (stage.runtime.kind == config::RuntimeKind::Docker)
        for (auto& pair : lint::container_env(stage.runtime.options)) env.push_back(std::move(pair));
    return env;
}

std::string last_value(const std::vector<std::pair<std::string, std::string>>& env, std::string_view key) {
    std::string value;
    for (const auto& [k, v] : env)
        if (k == key) value = v;
    return value;
}

// NCCL_IB_HCA: `^list` excludes (nothing is required then); `=list` exact names; else name prefixes.
// Each item may carry a port: mlx5_0:1.
void add_nccl_hcas(const std::string& value, const std::string& role, std::vector<HcaNeed>& out) {
    if (value.empty() || value[0] == '^') return;
    const bool exact = value[0] == '=';
    for (const auto& item : detail::split_trimmed(exact ? std::string_view(value).substr(1) : value, ',')) {
        if (item.empty()) continue;
        const auto colon = item.find(':');
        out.push_back({"NCCL_IB_HCA", role, item.substr(0, colon),
                       colon == std::string::npos ? "" : item.substr(colon + 1), !exact});
    }
}

// --disaggregation-ib-device: a comma list of exact device names (a JSON mapping is not checked).
void add_ib_devices(const std::string& value, const std::string& role, std::vector<HcaNeed>& out) {
    if (value.empty() || value[0] == '{') return;
    for (const auto& item : detail::split_trimmed(value, ','))
        if (!item.empty()) out.push_back({"--disaggregation-ib-device", role, item, "", false});
}

bool has_memlock_ulimit(const std::vector<std::string>& options) {
    for (std::size_t i = 0; i < options.size(); ++i) {
        std::string value;
        if (options[i] == "--ulimit" && i + 1 < options.size()) value = options[i + 1];
        if (options[i].starts_with("--ulimit=")) value = options[i].substr(9);
        if (value.starts_with("memlock=-1") || value.starts_with("memlock=unlimited")) return true;
    }
    return false;
}

bool never_pulls(const std::vector<std::string>& options) {
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (options[i] == "--pull=never") return true;
        if (options[i] == "--pull" && i + 1 < options.size() && options[i + 1] == "never") return true;
    }
    return false;
}

bool is_pdsim(const plan::Unit& unit) {
    return !unit.program.argv.empty() && std::filesystem::path(unit.program.argv[0]).filename() == "pdsim";
}

template <typename T, typename Same>
void add_unique(std::vector<T>& list, T item, Same same) {
    for (const auto& existing : list)
        if (same(existing, item)) return;
    list.push_back(std::move(item));
}

}  // namespace

std::vector<NodeNeeds> node_needs(const config::Cluster& cluster, const plan::Plan& plan) {
    std::vector<NodeNeeds> all;
    for (const auto& node : cluster.nodes) {
        NodeNeeds needs;
        needs.node = node;
        needs.state_dir = cluster.state_dir;
        all.push_back(std::move(needs));
    }
    const auto find = [&](const std::string& name) -> NodeNeeds* {
        for (auto& needs : all)
            if (needs.node.name == name) return &needs;
        return nullptr;
    };
    for (auto& needs : all) needs.pdsim_processes = true;
    for (const auto& stage : plan.stages) {
        const auto* role = cluster.find_role(stage.role);
        for (const auto& unit : stage.units) {
            auto* needs = find(unit.node);
            if (!needs || !role) continue;
            add_unique(needs->roles, stage.role, std::equal_to<>());
            const bool process = stage.runtime.kind == config::RuntimeKind::Process;
            needs->pdsim_processes = needs->pdsim_processes && process && is_pdsim(unit);
            if (!process)
                add_unique(needs->containers,
                           ContainerNeed{stage.role, stage.runtime.cli, stage.runtime.image,
                                         never_pulls(stage.runtime.options)},
                           [](const ContainerNeed& a, const ContainerNeed& b) {
                               return a.cli == b.cli && a.image == b.image;
                           });
            if (stage.kind != config::RoleKind::Sglang) continue;
            if (needs->sglang_role.empty()) {
                needs->sglang_role = stage.role;
                needs->gpus = role->gpus_per_node;
            }
            if (const auto model = lint::flag_value(unit.program.argv, {"--model-path", "--model"}))
                add_unique(needs->models, ModelNeed{stage.role, *model},
                           [](const ModelNeed& a, const ModelNeed& b) { return a.dir == b.dir; });
            const auto env = unit_env(stage, unit);
            for (const char* key : {"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"}) {
                const auto value = last_value(env, key);
                if (!value.empty())
                    add_unique(needs->ifnames, IfnameNeed{key, stage.role, value},
                               [](const IfnameNeed& a, const IfnameNeed& b) {
                                   return a.key == b.key && a.value == b.value;
                               });
            }
            std::vector<HcaNeed> hcas;
            add_nccl_hcas(last_value(env, "NCCL_IB_HCA"), stage.role, hcas);
            add_ib_devices(lint::flag_value(unit.program.argv, {"--disaggregation-ib-device"}).value_or(""),
                           stage.role, hcas);
            for (auto& hca : hcas)
                add_unique(needs->hcas, std::move(hca), [](const HcaNeed& a, const HcaNeed& b) {
                    return a.source == b.source && a.device == b.device && a.port == b.port;
                });
            const auto backend = lint::flag_value(unit.program.argv, {"--disaggregation-transfer-backend"})
                                     .value_or("mooncake");
            const bool rdma = !hcas.empty() || backend == "mooncake";
            needs->rdma = needs->rdma || rdma;
            needs->process_rdma = needs->process_rdma || (rdma && process);
            if (rdma && !process && !has_memlock_ulimit(stage.runtime.options))
                add_unique(needs->containers_without_memlock, stage.role, std::equal_to<>());
        }
    }
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Sglang || stage.py_spy.empty()) continue;
        const bool container = stage.runtime.kind == config::RuntimeKind::Docker;
        const StackToolNeed tool{stage.config_role.empty() ? stage.role : stage.config_role,
                                 stage.py_spy.front(), container ? stage.runtime.cli : "",
                                 container ? stage.runtime.image : ""};
        for (const auto& unit : stage.units)
            if (auto* needs = find(unit.node))
                add_unique(needs->stack_tools, tool, [](const StackToolNeed& a, const StackToolNeed& b) {
                    return a.program == b.program && a.cli == b.cli && a.image == b.image;
                });
    }
    for (auto& needs : all)
        if (needs.roles.empty()) needs.pdsim_processes = false;
    for (const auto& entry : push::plan_push(cluster)) {
        auto* needs = find(entry.node.name);
        for (const auto& file : entry.files) needs->files.push_back({file.source, file.dest, ""});
    }
    return all;
}

ProbeRequest probe_request(const NodeNeeds& needs) {
    ProbeRequest request;
    request.gpu = !needs.sglang_role.empty();
    for (const auto& container : needs.containers) {
        add_unique(request.clis, container.cli, std::equal_to<>());
        request.images.push_back({container.cli, container.image});
    }
    if (!needs.roles.empty()) request.disk_paths.push_back(needs.state_dir);
    request.listeners = !needs.ports.empty();
    for (const auto& tool : needs.stack_tools)
        request.programs.push_back({tool.cli, tool.image, tool.program});
    return request;
}

}  // namespace pdctl::doctor

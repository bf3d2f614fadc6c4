#include "pdctl/config/model.hpp"

#include <algorithm>

#include "pdctl/config/state_paths.hpp"

namespace pdctl::config {

const Node* Cluster::find_node(const std::string& node_name) const {
    const auto it =
        std::find_if(nodes.begin(), nodes.end(), [&](const Node& node) { return node.name == node_name; });
    return it == nodes.end() ? nullptr : &*it;
}

std::string Cluster::slurm_job_dir() const {
    return executor == ExecutorKind::Slurm ? slurm_output_dir(slurm.output_dir, state_dir, name) : "";
}

bool Cluster::nodes_share_this_machine() const {
    return executor == ExecutorKind::Local;
}

const Role* Cluster::find_role(const std::string& role_name) const {
    const auto it =
        std::find_if(roles.begin(), roles.end(), [&](const Role& role) { return role.name == role_name; });
    return it == roles.end() ? nullptr : &*it;
}

std::string Role::describe_group() const {
    if (groups <= 1) return name;
    return entry_name() + " group " + std::to_string(group) + " of " + std::to_string(groups);
}

DependencyGate Role::gate_on(const std::string& dependency) const {
    const auto it = narrow_gates.find(dependency);
    return it == narrow_gates.end() ? DependencyGate::Ready : it->second;
}

// The spellings are the ones the cluster file uses, so messages and `plan` output match it.
std::string to_string(RoleKind kind) {
    switch (kind) {
        case RoleKind::MooncakeMaster:
            return "mooncake-master";
        case RoleKind::Sglang:
            return "sglang";
        case RoleKind::Router:
            return "router";
        case RoleKind::Generic:
            return "generic";
    }
    return "unknown";
}

std::string to_string(SglangMode mode) {
    switch (mode) {
        case SglangMode::Prefill:
            return "prefill";
        case SglangMode::Decode:
            return "decode";
    }
    return "unknown";
}

std::string to_string(RuntimeKind kind) {
    switch (kind) {
        case RuntimeKind::Docker:
            return "docker";
        case RuntimeKind::Process:
            return "process";
    }
    return "unknown";
}

std::string to_string(ExecutorKind kind) {
    switch (kind) {
        case ExecutorKind::Ssh:
            return "ssh";
        case ExecutorKind::Local:
            return "local";
        case ExecutorKind::Slurm:
            return "slurm";
    }
    return "unknown";
}

std::string to_string(SshTransport transport) {
    switch (transport) {
        case SshTransport::Auto:
            return "auto";
        case SshTransport::Libssh2:
            return "libssh2";
        case SshTransport::OpenSsh:
            return "openssh";
    }
    return "auto";
}

std::string to_string(RouterImpl impl) {
    switch (impl) {
        case RouterImpl::MiniLb:
            return "minilb";
        case RouterImpl::SglangRouter:
            return "sglang-router";
        case RouterImpl::Smg:
            return "smg";
    }
    return "minilb";
}

std::string to_string(DependencyGate gate) {
    switch (gate) {
        case DependencyGate::Ready:
            return "ready";
        case DependencyGate::Bootstrap:
            return "bootstrap";
        case DependencyGate::Started:
            return "started";
    }
    return "unknown";
}

}  // namespace pdctl::config

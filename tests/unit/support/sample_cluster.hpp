#pragma once
// A cluster built in code (no loader): the standard PD shape on 8 nodes, used by plan and engine tests.

#include "pdctl/config/model.hpp"

namespace pdctl::testing {

inline config::Role make_role(std::string name, config::RoleKind kind, std::vector<std::string> nodes,
                              std::vector<std::string> depends_on) {
    config::Role role;
    role.name = std::move(name);
    role.kind = kind;
    role.nodes = std::move(nodes);
    role.depends_on = std::move(depends_on);
    role.runtime = config::RuntimeKind::Process;
    role.gpus_per_node = 8;
    role.stop_grace_seconds = 5;
    return role;
}

inline config::Cluster sample_cluster() {
    config::Cluster cluster;
    cluster.name = "demo";
    cluster.config_path = "demo.yaml";
    cluster.executor = config::ExecutorKind::Local;
    cluster.state_dir = "/tmp/pdctl-test";
    for (int i = 1; i <= 8; ++i)
        cluster.nodes.push_back({"n" + std::to_string(i), "10.0.0." + std::to_string(i), {}, {}, {}});

    auto master = make_role("mooncake-master", config::RoleKind::MooncakeMaster, {"n1"}, {});
    auto prefill =
        make_role("prefill", config::RoleKind::Sglang, {"n1", "n2", "n3", "n4"}, {"mooncake-master"});
    prefill.mode = config::SglangMode::Prefill;
    prefill.host = "0.0.0.0";
    prefill.env.push_back({"NCCL_SOCKET_IFNAME", "bond1", false, {}, {}});
    prefill.env.push_back({"HF_TOKEN", "hf_secret_value_123", true, {}, {}});
    auto decode = make_role("decode", config::RoleKind::Sglang, {"n5", "n6", "n7", "n8"}, {"prefill"});
    decode.mode = config::SglangMode::Decode;
    decode.host = "0.0.0.0";
    auto router = make_role("router", config::RoleKind::Router, {"n5"}, {"prefill", "decode"});
    router.router_impl = config::RouterImpl::MiniLb;
    router.port = 31000;
    router.prefill_roles = {"prefill"};
    router.decode_roles = {"decode"};
    cluster.roles = {master, prefill, decode, router};
    return cluster;
}

}  // namespace pdctl::testing

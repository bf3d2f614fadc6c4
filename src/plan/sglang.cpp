#include "pdctl/plan/role_kinds.hpp"
#include "program_env.hpp"

namespace pdctl::plan {

namespace detail {
const config::Node& node_of(const config::Cluster& cluster, const config::Role& role, int rank) {
    // The loader guarantees that every role node exists.
    return *cluster.find_node(role.nodes.at(static_cast<std::size_t>(rank)));
}
}  // namespace detail

// One rank of a multi-node SGLang group (SGLang server_args.py and entrypoints/engine.py): every rank
// gets the same --dist-init-addr (rank 0's address), --nnodes and total --tp-size, and its own
// --node-rank.
runtime::ProgramSpec sglang_program(const config::Cluster& cluster, const config::Role& role, int rank) {
    const auto& node = detail::node_of(cluster, role, rank);
    const auto& rank0 = detail::node_of(cluster, role, 0);
    const int nnodes = static_cast<int>(role.nodes.size());
    const int gpus = role.gpus_per_node;
    const int tp = role.tp_size ? role.tp_size : nnodes * (gpus ? gpus : 1);
    const bool prefill = role.mode == config::SglangMode::Prefill;

    runtime::ProgramSpec spec;
    // `sglang serve` takes exactly launch_server's flags (SGLang python/sglang/cli/serve.py).
    spec.argv =
        detail::program_prefix(role, role.entry == config::SglangEntry::Serve
                                         ? std::vector<std::string>{"sglang", "serve"}
                                         : std::vector<std::string>{"python3", "-m", "sglang.launch_server"});
    if (!role.model_path.empty()) detail::append(spec.argv, {"--model-path", role.model_path});
    detail::append(spec.argv, {"--disaggregation-mode", prefill ? "prefill" : "decode",
                               "--disaggregation-transfer-backend", role.transfer_backend});
    if (prefill) {
        detail::append(spec.argv,
                       {"--disaggregation-bootstrap-port", std::to_string(role.effective_bootstrap_port())});
    }
    // Mooncake's transfer hostname follows --host (sglang #21704): the compute address, not SSH's.
    detail::append(spec.argv, {"--host", role.host.empty() ? node.compute() : role.host, "--port",
                               std::to_string(service_port(role))});
    if (nnodes > 1) {
        const int dist_port = role.dist_init_port ? role.dist_init_port : kDistInitPort;
        detail::append(spec.argv, {"--nnodes", std::to_string(nnodes), "--node-rank", std::to_string(rank),
                                   "--dist-init-addr", rank0.compute() + ":" + std::to_string(dist_port)});
    }
    detail::append(spec.argv, {"--tp-size", std::to_string(tp)});
    if (role.ep_size) detail::append(spec.argv, {"--ep-size", std::to_string(role.ep_size)});
    detail::append(spec.argv, role.args);
    spec.env = detail::role_env(role);
    // The IP each rank's KV manager advertises (SGLang get_local_ip_auto): without it, the default
    // route's, which on a two-network node is the management one. One value per node, so pdctl sets it.
    // A profile's role-wide value would name one node for every rank (doctor PD015): the node's wins.
    if (!node.compute_address.empty()) {
        std::erase_if(spec.env, [](const runtime::EnvEntry& entry) { return entry.key == "SGLANG_HOST_IP"; });
        spec.env.push_back({"SGLANG_HOST_IP", node.compute_address, false});
    }
    spec.bootstrap = role.bootstrap;
    return spec;
}

}  // namespace pdctl::plan

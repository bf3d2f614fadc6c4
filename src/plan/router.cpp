#include "pdctl/plan/role_kinds.hpp"
#include "program_env.hpp"

namespace pdctl::plan {

// sglang_router.launch_router --pd-disaggregation (SGLang router_args.py): one --prefill URL PORT per
// prefill group and one --decode URL per decode group, repeated flags (the parser does not split
// commas), rank-0 routable addresses only (decode fetches KV from the prefill's bootstrap at the
// host it was given), and an explicit --host/--port (the default 30000 clashes with SGLang's).
runtime::ProgramSpec router_program(const config::Cluster& cluster, const config::Role& role, int rank) {
    const auto& node = detail::node_of(cluster, role, rank);
    runtime::ProgramSpec spec;
    spec.argv = detail::program_prefix(role, {"python3", "-m", "sglang_router.launch_router"});
    spec.argv.push_back("--pd-disaggregation");
    if (role.mini_lb) spec.argv.push_back("--mini-lb");
    for (const auto& name : role.prefill_roles) {
        const auto* group = cluster.find_role(name);
        const auto& rank0 = detail::node_of(cluster, *group, 0);
        const std::string url =
            "http://" + routable_address(*group, rank0) + ":" + std::to_string(service_port(*group));
        detail::append(spec.argv, {"--prefill", url, std::to_string(group->effective_bootstrap_port())});
    }
    for (const auto& name : role.decode_roles) {
        const auto* group = cluster.find_role(name);
        const auto& rank0 = detail::node_of(cluster, *group, 0);
        detail::append(spec.argv, {"--decode", "http://" + routable_address(*group, rank0) + ":" +
                                                   std::to_string(service_port(*group))});
    }
    detail::append(spec.argv, {"--host", role.host.empty() ? node.address : role.host, "--port",
                               std::to_string(service_port(role))});
    detail::append(spec.argv, role.args);
    spec.env = detail::role_env(role);
    spec.bootstrap = role.bootstrap;
    return spec;
}

}  // namespace pdctl::plan

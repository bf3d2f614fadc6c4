#include <algorithm>

#include "pdctl/plan/role_kinds.hpp"
#include "program_env.hpp"

namespace pdctl::plan {
namespace {

// The worker URL the router is given for a group: its rank 0, at an address the other nodes reach
// (decode fetches KV from the prefill's bootstrap at the host the router injects from this URL).
std::string worker_url(const config::Cluster& cluster, const config::Role& group) {
    const auto& rank0 = detail::node_of(cluster, group, 0);
    return "http://" + routable_address(group, rank0) + ":" + std::to_string(service_port(group));
}

// How long the router may wait for its workers at start-up: as long as the slowest P/D gate
// (rounded up to a second), so that the router never gives up on a group pdctl still waits for.
long long worker_startup_timeout_secs(const config::Cluster& cluster, const config::Role& router) {
    Duration longest{0};
    for (const auto* names : {&router.prefill_roles, &router.decode_roles}) {
        for (const auto& name : *names) {
            if (const auto* group = cluster.find_role(name))
                longest = std::max(longest, default_gate(cluster, *group).deadline);
        }
    }
    return std::max<long long>(1, (longest.count() + 999) / 1000);
}

}  // namespace

std::vector<std::string> router_worker_urls(const config::Cluster& cluster, const config::Role& router) {
    std::vector<std::string> urls;
    for (const auto* names : {&router.prefill_roles, &router.decode_roles})
        for (const auto& name : *names)
            if (const auto* group = cluster.find_role(name)) urls.push_back(worker_url(cluster, *group));
    return urls;
}

RouterFacts router_facts(const config::Cluster& cluster, const config::Role& router) {
    RouterFacts facts;
    facts.impl = router.router_impl;
    const auto& node = detail::node_of(cluster, router, 0);
    facts.url = "http://" + routable_address(router, node) + ":" + std::to_string(service_port(router));
    for (const auto& name : router.prefill_roles)
        if (const auto* group = cluster.find_role(name))
            facts.workers.push_back(
                {group->name, worker_url(cluster, *group), "prefill", group->effective_bootstrap_port()});
    for (const auto& name : router.decode_roles)
        if (const auto* group = cluster.find_role(name))
            facts.workers.push_back({group->name, worker_url(cluster, *group), "decode", std::nullopt});
    return facts;
}

// The PD router's command line, by implementation. All three take one `--prefill URL PORT` per prefill
// group and one `--decode URL` per decode group, as repeated flags (the Python parser does not split
// commas), and an explicit --host/--port (the default 30000 clashes with SGLang's):
//   minilb         python3 -m sglang_router.launch_router --pd-disaggregation --mini-lb ... (SGLang
//                  sgl-model-gateway/bindings/python/src/sglang_router/launch_router.py, mini_lb.py);
//                  MiniLB does not wait for its workers, so no start-up timeout is passed.
//   sglang-router  the same without --mini-lb: the Rust router, which waits for its workers up to
//                  --worker-startup-timeout-secs (router_args.py).
//   smg            smg launch --pd-disaggregation ... (smg-project/smg: the same flags).
namespace {

// `with_workers`: the worker list and what is derived from it (the start-up wait for the slowest
// worker); without them, what a router with a worker API is launched as, whichever workers it serves.
runtime::ProgramSpec router_command(const config::Cluster& cluster, const config::Role& role, int rank,
                                    bool with_workers) {
    const auto& node = detail::node_of(cluster, role, rank);
    runtime::ProgramSpec spec;
    const bool smg = role.router_impl == config::RouterImpl::Smg;
    spec.argv = detail::program_prefix(
        role, smg ? std::vector<std::string>{"smg", "launch"}
                  : std::vector<std::string>{"python3", "-m", "sglang_router.launch_router"});
    spec.argv.push_back("--pd-disaggregation");
    if (role.router_impl == config::RouterImpl::MiniLb) spec.argv.push_back("--mini-lb");
    for (const auto& name : with_workers ? role.prefill_roles : std::vector<std::string>{}) {
        const auto* group = cluster.find_role(name);
        detail::append(spec.argv, {"--prefill", worker_url(cluster, *group),
                                   std::to_string(group->effective_bootstrap_port())});
    }
    for (const auto& name : with_workers ? role.decode_roles : std::vector<std::string>{})
        detail::append(spec.argv, {"--decode", worker_url(cluster, *cluster.find_role(name))});
    detail::append(spec.argv, {"--host", role.host.empty() ? node.compute() : role.host, "--port",
                               std::to_string(service_port(role))});
    if (role.router_impl != config::RouterImpl::MiniLb && with_workers) {
        detail::append(spec.argv, {"--worker-startup-timeout-secs",
                                   std::to_string(worker_startup_timeout_secs(cluster, role))});
    }
    detail::append(spec.argv, role.args);
    spec.env = detail::role_env(role);
    spec.bootstrap = role.bootstrap;
    return spec;
}

}  // namespace

runtime::ProgramSpec router_program(const config::Cluster& cluster, const config::Role& role, int rank) {
    return router_command(cluster, role, rank, true);
}

runtime::ProgramSpec router_launch_identity(const config::Cluster& cluster, const config::Role& role,
                                            int rank) {
    return router_command(cluster, role, rank, role.router_impl == config::RouterImpl::MiniLb);
}

}  // namespace pdctl::plan

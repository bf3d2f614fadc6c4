#pragma once
// The real programs' command lines, one builder per role kind (upstream sources cited at each builder).

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::plan {

// Defaults that the kinds use when the config leaves a value at 0 / empty.
inline constexpr int kSglangPort = 30000;
inline constexpr int kDistInitPort = 5000;
inline constexpr int kMooncakePort = 50051;
inline constexpr int kMooncakeMetricsPort = 9003;
inline constexpr int kRouterPort = 8000;

runtime::ProgramSpec mooncake_master_program(const config::Cluster& cluster, const config::Role& role,
                                             int rank);
// The flag mooncake_master takes its RPC port by, without dashes: "rpc_port" when the role's Mooncake
// release has it, else "port".
std::string mooncake_rpc_port_flag(const config::Role& role);
// The plan's "program:" line of a master: its release, where the config shows it, and that flag.
std::string mooncake_master_note(const config::Role& role);
runtime::ProgramSpec sglang_program(const config::Cluster& cluster, const config::Role& role, int rank);
runtime::ProgramSpec router_program(const config::Cluster& cluster, const config::Role& role, int rank);
// What identifies a router's launch, for its fingerprint: its command line without the worker list
// when it has a worker API (SMG, sglang-router), whose workers change at run time (a rollout moves a
// group from decode to prefill without restarting it; plan::RouterFacts::workers is what it should
// list, checked against GET /workers); MiniLB's list is fixed at launch, so it stays.
runtime::ProgramSpec router_launch_identity(const config::Cluster& cluster, const config::Role& role,
                                            int rank);
runtime::ProgramSpec generic_program(const config::Cluster& cluster, const config::Role& role, int rank);

// The rank-0 URLs of the prefill groups, then the decode groups, that a router is given.
std::vector<std::string> router_worker_urls(const config::Cluster& cluster, const config::Role& router);

// The router's implementation, base URL and its prefill and decode groups as it is given them.
RouterFacts router_facts(const config::Cluster& cluster, const config::Role& router);

// The readiness gate of a role (rank 0 for groups), with the kind's defaults filled in.
Gate default_gate(const config::Cluster& cluster, const config::Role& role);
// A prefill role's rank-0 bootstrap server answering GET /health: it starts before the weights load
// (SGLang disagg_service.py), so it says the group is launching, not that it is ready.
Gate bootstrap_gate(const config::Cluster& cluster, const config::Role& prefill);

// The address other nodes use to reach `role` on `node`: its --host unless that is a wildcard.
std::string routable_address(const config::Role& role, const config::Node& node);
// The port a role serves HTTP on (kind default if 0).
int service_port(const config::Role& role);

}  // namespace pdctl::plan

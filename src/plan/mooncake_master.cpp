#include "pdctl/config/mooncake_version.hpp"
#include "pdctl/plan/role_kinds.hpp"
#include "program_env.hpp"

namespace pdctl::plan {

// mooncake_master --port 50051 --metrics_port 9003: the RPC port and the always-on HTTP admin server
// whose /health is the readiness gate (Mooncake mooncake-store/src/master.cpp). A `version:` from
// 0.3.4.post1 on gets `--rpc_port`, the flag that replaced `--port`; without one, `--port`, which
// every 0.3.x still accepts.
runtime::ProgramSpec mooncake_master_program(const config::Cluster& /*cluster*/, const config::Role& role,
                                             int /*rank*/) {
    runtime::ProgramSpec spec;
    spec.argv = detail::program_prefix(role, {"mooncake_master"});
    const auto version = config::parse_mooncake_version(role.mooncake_version);
    const bool rpc_port = version && *version >= config::kMooncakeRpcPortSince;
    detail::append(spec.argv,
                   {rpc_port ? "--rpc_port" : "--port", std::to_string(service_port(role)), "--metrics_port",
                    std::to_string(role.metrics_port ? role.metrics_port : kMooncakeMetricsPort)});
    detail::append(spec.argv, role.args);
    spec.env = detail::role_env(role);
    spec.bootstrap = role.bootstrap;
    return spec;
}

runtime::ProgramSpec generic_program(const config::Cluster& /*cluster*/, const config::Role& role,
                                     int /*rank*/) {
    runtime::ProgramSpec spec;
    spec.argv = role.command;
    detail::append(spec.argv, role.args);
    spec.env = detail::role_env(role);
    spec.bootstrap = role.bootstrap;
    return spec;
}

}  // namespace pdctl::plan

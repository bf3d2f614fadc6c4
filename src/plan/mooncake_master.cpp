#include "pdctl/config/mooncake_master_flags.hpp"
#include "pdctl/config/mooncake_version.hpp"
#include "pdctl/plan/role_kinds.hpp"
#include "program_env.hpp"

namespace pdctl::plan {

std::string mooncake_rpc_port_flag(const config::Role& role) {
    const auto version = config::parse_mooncake_version(role.mooncake_version);
    return version && config::mooncake_master_has(*version, "rpc_port") ? "rpc_port" : "port";
}

std::string mooncake_master_note(const config::Role& role) {
    if (role.mooncake_version.empty())
        return "mooncake_master of a release the config does not show (no version:, no Mooncake install in "
               "BOOTSTRAP, no Mooncake image): --port, which every 0.3.x takes";
    return "mooncake_master " + role.mooncake_version + " (" + role.mooncake_version_source + "): --" +
           mooncake_rpc_port_flag(role);
}

// mooncake_master --rpc_port 50051 --metrics_port 9003: the RPC port and the always-on HTTP admin
// server whose /health is the readiness gate (Mooncake mooncake-store/src/master.cpp). The RPC port's
// flag follows the release the config shows (role.mooncake_version): `--rpc_port` where it has it
// (0.3.4.post1 on), which replaced `--port`; `--port`, which every 0.3.x still accepts, when the release
// is older or unknown.
runtime::ProgramSpec mooncake_master_program(const config::Cluster& /*cluster*/, const config::Role& role,
                                             int /*rank*/) {
    runtime::ProgramSpec spec;
    spec.argv = detail::program_prefix(role, {"mooncake_master"});
    detail::append(spec.argv,
                   {"--" + mooncake_rpc_port_flag(role), std::to_string(service_port(role)), "--metrics_port",
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

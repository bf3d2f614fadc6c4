#include "listeners.hpp"

#include "pdctl/lint/address.hpp"
#include "pdctl/lint/argv.hpp"
#include "pdctl/lint/unit_ports.hpp"
#include "pdctl/plan/role_kinds.hpp"

namespace pdctl::lint::detail {
namespace {

// --dist-init-addr HOST:PORT (alias --nccl-init-addr): rank 0 listens on PORT.
std::optional<int> dist_init_port(const std::vector<std::string>& argv) {
    const auto addr = flag_value(argv, {"--dist-init-addr", "--nccl-init-addr"});
    if (!addr) return std::nullopt;
    const auto colon = addr->rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    try {
        return std::stoi(addr->substr(colon + 1));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::vector<Listener> listeners_of(const plan::Stage& stage, const plan::Unit& unit) {
    const auto& argv = unit.program.argv;
    std::vector<Listener> out;
    const auto add = [&](int port, std::string what, std::string key, bool bootstrap = false) {
        if (port > 0) out.push_back({&unit, port, std::move(what), std::move(key), bootstrap});
    };
    switch (stage.kind) {
        case config::RoleKind::Sglang:
            add(flag_int(argv, {"--port"}).value_or(kSglangDefaultPort), "--port", "port");
            if (unit.rank == 0 && stage.mode == "prefill")
                add(bootstrap_port(argv), "bootstrap port", "bootstrap_port", true);
            if (unit.rank == 0)
                if (const auto dist = dist_init_port(argv)) add(*dist, "dist-init port", "dist_init_port");
            break;
        case config::RoleKind::MooncakeMaster: {
            // gflags also accepts one dash; --rpc_port, when not 0, replaces the deprecated --port.
            const int rpc = flag_int(argv, {"--rpc_port", "-rpc_port"}).value_or(0);
            add(rpc > 0 ? rpc : flag_int(argv, {"--port", "-port"}).value_or(kMooncakeDefaultPort),
                "RPC port", "port");
            add(flag_int(argv, {"--metrics_port", "-metrics_port"}).value_or(kMooncakeDefaultMetricsPort),
                "metrics port", "metrics_port");
            break;
        }
        case config::RoleKind::Router:
            add(flag_int(argv, {"--port"}).value_or(kRouterDefaultPort), "--port", "port");
            break;
        case config::RoleKind::Generic:
            break;  // added by the caller: the port lives in the role, not in an argv pdctl understands
    }
    return out;
}

// What the unit binds: --host for sglang and the router (SGLang's default 127.0.0.1), the master's
// --rpc_address (it binds every interface without one), every interface for a generic role.
std::string bind_host(const plan::Stage& stage, const plan::Unit& unit) {
    std::string host;
    switch (stage.kind) {
        case config::RoleKind::Sglang:
        case config::RoleKind::Router:
            host = bound_host(unit);
            break;
        case config::RoleKind::MooncakeMaster:
            host = flag_value(unit.program.argv, {"--rpc_address", "-rpc_address"}).value_or("");
            break;
        case config::RoleKind::Generic:
            break;
    }
    return is_wildcard_host(host) ? "" : host;
}

}  // namespace

ListenerMap listeners_by_address(const RuleInput& input) {
    ListenerMap map;
    for (const auto& stage : input.plan.stages) {
        const auto* role = input.cluster.find_role(stage.role);
        for (const auto& unit : stage.units) {
            auto listeners = listeners_of(stage, unit);
            // A generic role's argv is opaque; its port (or the port its gate probes) is what it serves.
            if (stage.kind == config::RoleKind::Generic && role && plan::service_port(*role) > 0)
                listeners.push_back({&unit, plan::service_port(*role), "port", "port"});
            for (auto& listener : listeners)
                map[{unit.address, listener.port}].push_back(std::move(listener));
        }
    }
    return map;
}

std::string describe(const std::vector<Listener>& listeners) {
    std::vector<std::string> parts;
    for (const auto& l : listeners)
        parts.push_back(l.unit->role + " rank " + std::to_string(l.unit->rank) + " (" + l.what + ")");
    return join(parts);
}

}  // namespace pdctl::lint::detail

namespace pdctl::lint {

std::vector<UnitPort> unit_ports(const config::Role& role, const plan::Stage& stage, const plan::Unit& unit) {
    auto listeners = detail::listeners_of(stage, unit);
    if (stage.kind == config::RoleKind::Generic && plan::service_port(role) > 0)
        listeners.push_back({&unit, plan::service_port(role), "port", "port"});
    const auto host = detail::bind_host(stage, unit);
    std::vector<UnitPort> ports;
    for (const auto& listener : listeners) ports.push_back({host, listener.port, listener.what});
    return ports;
}

}  // namespace pdctl::lint

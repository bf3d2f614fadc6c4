#include "rule_support.hpp"

#include <algorithm>

#include "pdctl/lint/address.hpp"
#include "pdctl/lint/argv.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::lint::detail {

bool is_sglang(const config::Role& role, config::SglangMode mode) {
    return role.kind == config::RoleKind::Sglang && role.mode == mode;
}

bool uses_mooncake(const RuleInput& input, const config::Role& role) {
    const auto* stage = stage_of(input.plan, role.name);
    if (!stage || stage->units.empty()) return role.transfer_backend.rfind("mooncake", 0) == 0;
    const auto backend = flag_value(stage->units.front().program.argv, {"--disaggregation-transfer-backend"})
                             .value_or("mooncake");
    return backend == "mooncake" || backend == "mooncake_tcp";
}

const config::EnvVar* find_env(const config::Role& role, std::string_view key) {
    const auto it = std::find_if(role.env.begin(), role.env.end(),
                                 [&](const config::EnvVar& var) { return var.key == key; });
    return it == role.env.end() ? nullptr : &*it;
}

std::string shown(const config::EnvVar& var) {
    return var.secret ? util::kRedacted : var.value;
}

config::SourceLocation profile_location(const config::Role& role) {
    if (role.profile_files.size() == 1) return {role.profile_files.front(), 0, 0};
    return role.where;
}

std::string profile_names(const config::Role& role) {
    return join(role.profile_files);
}

const plan::Stage* stage_of(const plan::Plan& plan, const std::string& role) {
    return plan.find_stage(role);
}

int stage_number(const plan::Plan& plan, const std::string& role) {
    for (std::size_t i = 0; i < plan.stages.size(); ++i)
        if (plan.stages[i].role == role) return static_cast<int>(i) + 1;
    return 0;
}

Severity loopback_severity(const config::Cluster& cluster) {
    return cluster.nodes_share_this_machine() ? Severity::Info : Severity::Error;
}

std::string bound_host(const plan::Unit& unit) {
    return flag_value(unit.program.argv, {"--host"}).value_or(kSglangDefaultHost);
}

Endpoint http_endpoint(const plan::Unit& unit) {
    Endpoint endpoint;
    endpoint.host = bound_host(unit);
    if (is_wildcard_host(endpoint.host)) endpoint.host = unit.compute_address;
    endpoint.port = flag_int(unit.program.argv, {"--port"}).value_or(kSglangDefaultPort);
    return endpoint;
}

int tp_size(const std::vector<std::string>& argv) {
    return flag_int(argv, {"--tp-size", "--tensor-parallel-size", "--tp"}).value_or(1);
}

int bootstrap_port(const std::vector<std::string>& argv) {
    return flag_int(argv, {"--disaggregation-bootstrap-port"}).value_or(config::kSglangBootstrapPort);
}

bool given_in_args(const config::Role& role, std::string_view flag) {
    return std::any_of(role.args.begin(), role.args.end(), [&](const std::string& word) {
        return word == flag ||
               (word.size() > flag.size() && word.rfind(flag, 0) == 0 && word[flag.size()] == '=');
    });
}

std::string router_label(const std::string& role) {
    return role == "router" ? "the router" : "router " + role;
}

std::string describe_unit(const plan::Unit& unit) {
    return unit.role + " rank " + std::to_string(unit.rank) + " on " + unit.node + " (" + unit.address + ")";
}

}  // namespace pdctl::lint::detail

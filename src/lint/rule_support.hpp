#pragma once
// Shared by the rule files: roles, units and env values by name, and what a unit's final argv
// means on the network (the host it binds, the port peers reach it at). Flags missing from an argv
// take the program's own default (SGLang's server_args.py, sglang_router's
// router_args.py, Mooncake's master.cpp; docs/doctor.md, "Reading argv"), not pdctl's.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pdctl/lint/rules.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::lint::detail {

inline constexpr const char* kSglangDefaultHost = "127.0.0.1";
inline constexpr int kSglangDefaultPort = 30000;
inline constexpr int kRouterDefaultPort = 30000;
inline constexpr int kMooncakeDefaultPort = 50051;
inline constexpr int kMooncakeDefaultMetricsPort = 9003;

bool is_sglang(const config::Role& role, config::SglangMode mode);
// The transfer engine is Mooncake (mooncake or mooncake_tcp), judged from rank 0's final argv.
bool uses_mooncake(const RuleInput& input, const config::Role& role);

const config::EnvVar* find_env(const config::Role& role, std::string_view key);
// What a message may show of an env value: the value, or [REDACTED] for a secret.
std::string shown(const config::EnvVar& var);

// Where BOOTSTRAP and EXTRA_ARGS come from: the model keeps no line for them, so the profile file
// when the role has exactly one, else the role in the cluster file.
config::SourceLocation profile_location(const config::Role& role);
// "prefill.env" / "a.env, b.env" / "" — for messages that name the profile to edit.
std::string profile_names(const config::Role& role);

const plan::Stage* stage_of(const plan::Plan& plan, const std::string& role);
// The 1-based stage number of a role (0 if absent), for messages about start order.
int stage_number(const plan::Plan& plan, const std::string& role);

// Loopback addresses are errors on real clusters; the simulated local cluster lives on them.
Severity loopback_severity(const config::Cluster& cluster);

// The host an sglang unit binds (--host, last one wins; SGLang's default 127.0.0.1).
std::string bound_host(const plan::Unit& unit);
struct Endpoint {
    std::string host;
    int port = 0;
};
// Where peers reach an sglang unit's HTTP server: its --host, or its node's address for a wildcard.
Endpoint http_endpoint(const plan::Unit& unit);
// An sglang argv's --tp-size (last of its aliases; SGLang's default 1).
int tp_size(const std::vector<std::string>& argv);
// A prefill unit's --disaggregation-bootstrap-port (SGLang's default 8998).
int bootstrap_port(const std::vector<std::string>& argv);
// Whether a flag comes from the role's own args (YAML args or EXTRA_ARGS) rather than from pdctl.
bool given_in_args(const config::Role& role, std::string_view flag);

// "the router" for a role named router, else "router <name>": messages read naturally either way.
std::string router_label(const std::string& role);
// "prefill rank 0 on n1 (10.0.0.1)"
std::string describe_unit(const plan::Unit& unit);
using util::join;

}  // namespace pdctl::lint::detail

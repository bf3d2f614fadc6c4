#include "pdctl/plan/generated_flags.hpp"

#include <algorithm>
#include <map>

#include "pdctl/plan/role_kinds.hpp"

namespace pdctl::plan {

std::vector<GeneratedFlag> generated_flags(const Unit& unit, const config::Role& role) {
    const auto& argv = unit.program.argv;
    if (argv.size() < role.args.size() || !std::equal(role.args.rbegin(), role.args.rend(), argv.rbegin()))
        return {};
    const auto end = argv.size() - role.args.size();
    std::vector<GeneratedFlag> flags;
    for (std::size_t i = 0; i < end; ++i) {
        const auto& word = argv[i];
        if (word.rfind("--", 0) != 0 || word.size() == 2) continue;
        if (const auto eq = word.find('='); eq != std::string::npos) {
            flags.push_back({word.substr(0, eq), word.substr(eq + 1)});
        } else if (i + 1 < end && argv[i + 1].rfind("--", 0) != 0) {
            flags.push_back({word, argv[i + 1]});
            ++i;
        } else {
            flags.push_back({word, ""});
        }
    }
    return flags;
}

std::string flag_source(config::RoleKind kind, const std::string& flag) {
    if (flag == "--port") {
        switch (kind) {
            case config::RoleKind::MooncakeMaster:
                return "port: (default " + std::to_string(kMooncakePort) +
                       "; the RPC port, --rpc_port from Mooncake 0.3.4.post1)";
            case config::RoleKind::Router:
                return "port: (default " + std::to_string(kRouterPort) + ")";
            default:
                return "port: (default " + std::to_string(kSglangPort) + ")";
        }
    }
    // The builders in this folder: sglang.cpp, router.cpp, mooncake_master.cpp.
    static const std::map<std::string, std::string> sources = {
        {"--model-path", "model_path: (or MODEL_PATH in the profile)"},
        {"--disaggregation-mode", "mode:"},
        {"--disaggregation-transfer-backend", "transfer_backend: (default mooncake)"},
        {"--disaggregation-bootstrap-port", "bootstrap_port: (default 8998)"},
        {"--host", "host: (default: the node's compute address)"},
        {"--nnodes", "nodes: (how many)"},
        {"--node-rank", "nodes: (the node's position, one per rank)"},
        {"--dist-init-addr", "nodes: (rank 0's compute address) and dist_init_port: (default 5000)"},
        {"--tp-size", "tp_size: (default: nodes × gpus_per_node)"},
        {"--ep-size", "ep_size:"},
        {"--prefill", "the router's prefill: roles (rank 0 URL and bootstrap port)"},
        {"--decode", "the router's decode: roles (rank 0 URL)"},
        {"--pd-disaggregation", "kind: router"},
        {"--mini-lb", "impl: minilb"},
        {"--worker-startup-timeout-secs", "the prefill and decode roles' health deadlines"},
        {"--rpc_port",
         "port: (default 50051) and the release in version: (--rpc_port from Mooncake 0.3.4.post1)"},
        {"--metrics_port", "metrics_port: (default 9003)"},
    };
    const auto it = sources.find(flag);
    return it == sources.end() ? "the role's settings (docs/config.md)" : it->second;
}

}  // namespace pdctl::plan

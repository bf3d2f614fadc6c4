#pragma once
// Shared by the role-kind builders: the role's env and extra args, passed through unchanged.

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::plan::detail {

inline std::vector<runtime::EnvEntry> role_env(const config::Role& role) {
    std::vector<runtime::EnvEntry> env;
    for (const auto& var : role.env) env.push_back({var.key, var.value, var.secret});
    return env;
}

inline void append(std::vector<std::string>& argv, std::initializer_list<std::string> words) {
    argv.insert(argv.end(), words.begin(), words.end());
}

inline void append(std::vector<std::string>& argv, const std::vector<std::string>& words) {
    argv.insert(argv.end(), words.begin(), words.end());
}

// The role's program override, or the real program.
inline std::vector<std::string> program_prefix(const config::Role& role,
                                               const std::vector<std::string>& real) {
    return role.program.empty() ? real : role.program;
}

const config::Node& node_of(const config::Cluster& cluster, const config::Role& role, int rank);

}  // namespace pdctl::plan::detail

#pragma once
// Internal to the config layer: one entry of `roles:` -> Role, and the checks across roles.

#include <vector>

#include "pdctl/config/detail/loading.hpp"

namespace pdctl::config::detail {

// Where a role names other roles, for the checks that need every role loaded first.
struct RoleRefs {
    std::vector<SourceLocation> depends_on;       // one per Role::depends_on entry
    std::vector<SourceLocation> depends_on_gate;  // its `gate:` value (the entry itself when absent)
    std::vector<SourceLocation> prefill;          // one per Role::prefill_roles entry
    std::vector<SourceLocation> decode;           // one per Role::decode_roles entry
    bool prefill_explicit = false;
    bool decode_explicit = false;
    SourceLocation prefill_list;  // the `prefill:` value, when explicit
    SourceLocation decode_list;   // the `decode:` value, when explicit
};

// Reads one role; every problem goes to the context's diagnostics. With `groups:`, `groups` gets each
// group's nodes (the Role's `nodes` holds them all) and expand_groups() makes one Role per group.
Role load_role(const LoadContext& ctx, const MapReader::Entry& entry, const RoleDefaults& defaults,
               const std::vector<Node>& nodes, RoleRefs& refs, std::vector<std::vector<std::string>>& groups);

// One Role per group of `role` (the first keeps its name, group K is NAME-K), each with a copy of
// `refs`; appended to `roles`/`all_refs`. A group name taken by another `roles:` key (`keys`) is an
// error at the role's key.
void expand_groups(const YamlContext& ctx, const Role& role, const RoleRefs& refs,
                   const std::vector<std::vector<std::string>>& groups, const std::vector<std::string>& keys,
                   std::vector<Role>& roles, std::vector<RoleRefs>& all_refs);

// Replaces every reference to a `roles:` key that has several groups (depends_on and its gates, a
// router's explicit prefill/decode lists) by its groups' names.
void expand_group_references(std::vector<Role>& roles, std::vector<RoleRefs>& refs);

// `depends_on:` -> Role::depends_on, depends_on_explicit and narrow_gates (names are checked later,
// by link_roles, once every role is known).
void read_depends_on(const MapReader& m, Role& role, RoleRefs& refs);

// The role's profile files and `env:` -> env, bootstrap, args (EXTRA_ARGS) and model_path.
void load_role_environment(const LoadContext& ctx, const MapReader& role_map, Role& role);

// Fills the routers' default prefill/decode lists and the derived depends_on (the standard PD
// order), then checks every reference between roles and reports dependency cycles.
void link_roles(std::vector<Role>& roles, const std::vector<RoleRefs>& refs, const YamlContext& ctx);

}  // namespace pdctl::config::detail

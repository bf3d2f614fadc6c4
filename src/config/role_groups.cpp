// A `roles:` entry with several groups becomes one Role per group, and references to the entry become
// references to all of its groups: everything after the loader (plan, engine, status) sees ordinary
// roles, one stage per group.

#include <algorithm>
#include <map>

#include "pdctl/config/detail/role_loader.hpp"

namespace pdctl::config::detail {

void expand_groups(const YamlContext& ctx, const Role& role, const RoleRefs& refs,
                   const std::vector<std::vector<std::string>>& groups, const std::vector<std::string>& keys,
                   std::vector<Role>& roles, std::vector<RoleRefs>& all_refs) {
    if (groups.empty()) {
        roles.push_back(role);
        roles.back().config_role = role.name;
        all_refs.push_back(refs);
        return;
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        Role group = role;
        group.config_role = role.name;
        group.group = static_cast<int>(g + 1);
        group.groups = static_cast<int>(groups.size());
        group.nodes = groups[g];
        if (g > 0) {
            group.name = role.name + "-" + std::to_string(g + 1);
            if (std::find(keys.begin(), keys.end(), group.name) != keys.end()) {
                ctx.error(role.where, "roles." + role.name + ".groups",
                          "group " + std::to_string(g + 1) + " would be named `" + group.name +
                              "`, which is another role",
                          "a role's group K is NAME-K: rename one of the two roles");
            }
        }
        roles.push_back(std::move(group));
        all_refs.push_back(refs);
    }
}

namespace {

// The groups' names of every `roles:` key that has more than one group.
std::map<std::string, std::vector<std::string>> multi_group_entries(const std::vector<Role>& roles) {
    std::map<std::string, std::vector<std::string>> entries;
    for (const auto& role : roles)
        if (role.groups > 1) entries[role.entry_name()].push_back(role.name);
    return entries;
}

// Replaces each name in `names` that is a multi-group entry by its groups; `where` (one location
// per name, or empty) is widened alongside, each group taking the location of the reference.
void widen(const std::map<std::string, std::vector<std::string>>& entries, std::vector<std::string>& names,
           std::vector<SourceLocation>* where, std::vector<SourceLocation>* where2 = nullptr) {
    std::vector<std::string> out;
    std::vector<SourceLocation> out_where, out_where2;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto it = entries.find(names[i]);
        const std::vector<std::string> targets = it == entries.end() ? std::vector{names[i]} : it->second;
        for (const auto& target : targets) {
            if (std::find(out.begin(), out.end(), target) != out.end()) continue;
            out.push_back(target);
            if (where && i < where->size()) out_where.push_back((*where)[i]);
            if (where2 && i < where2->size()) out_where2.push_back((*where2)[i]);
        }
    }
    names = std::move(out);
    if (where) *where = std::move(out_where);
    if (where2) *where2 = std::move(out_where2);
}

}  // namespace

void expand_group_references(std::vector<Role>& roles, std::vector<RoleRefs>& refs) {
    const auto entries = multi_group_entries(roles);
    if (entries.empty()) return;
    for (std::size_t i = 0; i < roles.size(); ++i) {
        Role& role = roles[i];
        if (role.depends_on_explicit) {
            std::map<std::string, DependencyGate> gates;
            for (const auto& [name, gate] : role.narrow_gates) {
                const auto it = entries.find(name);
                if (it == entries.end()) {
                    gates[name] = gate;
                } else {
                    for (const auto& group : it->second) gates[group] = gate;
                }
            }
            role.narrow_gates = std::move(gates);
            widen(entries, role.depends_on, &refs[i].depends_on, &refs[i].depends_on_gate);
        }
        if (refs[i].prefill_explicit) widen(entries, role.prefill_roles, &refs[i].prefill);
        if (refs[i].decode_explicit) widen(entries, role.decode_roles, &refs[i].decode);
    }
}

}  // namespace pdctl::config::detail

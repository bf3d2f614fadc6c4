// `depends_on:` of one role. Each entry is a role name (wait for its full readiness) or a map
// `{role: prefill, gate: bootstrap}` that narrows what this role waits for; see DependencyGate.

#include <algorithm>
#include <optional>

#include "pdctl/config/detail/role_loader.hpp"

namespace pdctl::config::detail {

namespace {

const std::vector<std::pair<std::string, DependencyGate>> kGates = {
    {"ready", DependencyGate::Ready},
    {"bootstrap", DependencyGate::Bootstrap},
    {"started", DependencyGate::Started},
};

// One entry: the role it names, and where to point at the name and at the gate.
struct Entry {
    std::string role;
    DependencyGate gate = DependencyGate::Ready;
    SourceLocation role_where;
    SourceLocation gate_where;
};

std::optional<Entry> read_entry(const YamlContext& ctx, const YAML::Node& node, const SourceLocation& where,
                                const std::string& path) {
    if (node.IsScalar()) return Entry{node.Scalar(), DependencyGate::Ready, where, where};
    if (!node.IsMap()) {
        ctx.error(where, path, "expected a role name or a map, got " + describe(node),
                  "write `prefill` or `{role: prefill, gate: bootstrap}`");
        return std::nullopt;
    }
    MapReader map(ctx, node, path, where);
    map.check_keys({"role", "gate"});
    Entry entry;
    if (!map.require("role", "name the role this one waits for")) return std::nullopt;
    if (!map.string("role", entry.role)) return std::nullopt;
    entry.role_where = map.find("role")->value_where;
    entry.gate_where = entry.role_where;
    if (const auto* gate = map.find("gate")) {
        if (!map.choice("gate", entry.gate, kGates)) return std::nullopt;
        entry.gate_where = gate->value_where;
    }
    return entry;
}

}  // namespace

void read_depends_on(const MapReader& m, Role& role, RoleRefs& refs) {
    const auto* list = m.find("depends_on");
    if (!list) return;
    const auto& ctx = m.context();
    const std::string path = m.child_path("depends_on");
    if (!list->value.IsNull() && !list->value.IsSequence()) {
        ctx.error(list->value_where, path, "expected a list, got " + describe(list->value));
        return;
    }
    role.depends_on_explicit = true;  // `depends_on: []` (or nothing under it) means "none"
    std::size_t index = 0;
    for (const auto& element : list->value) {
        const std::string element_path = path + "[" + std::to_string(index++) + "]";
        const auto entry = read_entry(ctx, element, ctx.at(element, list->value_where), element_path);
        if (!entry) continue;
        if (role.gate_on(entry->role) != DependencyGate::Ready ||
            std::find(role.depends_on.begin(), role.depends_on.end(), entry->role) != role.depends_on.end()) {
            // Two entries for one role could name two gates; neither would be obviously right.
            ctx.error(entry->role_where, element_path, "role `" + entry->role + "` is listed twice",
                      "keep one entry per role");
            continue;
        }
        role.depends_on.push_back(entry->role);
        refs.depends_on.push_back(entry->role_where);
        refs.depends_on_gate.push_back(entry->gate_where);
        if (entry->gate != DependencyGate::Ready) role.narrow_gates[entry->role] = entry->gate;
    }
}

}  // namespace pdctl::config::detail

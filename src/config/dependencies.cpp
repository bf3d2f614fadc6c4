// References between roles: the routers' prefill/decode lists, depends_on (explicit or derived
// from the standard PD order), and dependency cycles.

#include <algorithm>
#include <map>

#include "pdctl/config/detail/role_loader.hpp"

namespace pdctl::config::detail {

namespace {

bool is_sglang(const Role& role, SglangMode mode) {
    return role.kind == RoleKind::Sglang && role.mode == mode;
}

std::vector<std::string> names_of(const std::vector<Role>& roles, SglangMode mode) {
    std::vector<std::string> names;
    for (const auto& role : roles) {
        if (is_sglang(role, mode)) names.push_back(role.name);
    }
    return names;
}

class Linker {
  public:
    Linker(std::vector<Role>& roles, const std::vector<RoleRefs>& refs, const YamlContext& ctx)
        : roles_(roles), refs_(refs), ctx_(ctx) {
        for (std::size_t i = 0; i < roles_.size(); ++i) index_.emplace(roles_[i].name, i);
        for (const auto& role : roles_) names_.push_back(role.name);
    }

    void run() {
        for (std::size_t i = 0; i < roles_.size(); ++i) {
            if (roles_[i].kind == RoleKind::Router) link_router(i);
        }
        for (std::size_t i = 0; i < roles_.size(); ++i) {
            if (roles_[i].depends_on_explicit) {
                check_explicit_dependencies(i);
            } else {
                roles_[i].depends_on = derived_dependencies(roles_[i]);
            }
        }
        report_cycles();
    }

  private:
    const Role* find(const std::string& name) const {
        const auto it = index_.find(name);
        return it == index_.end() ? nullptr : &roles_[it->second];
    }

    // A name that must be one of the roles; reports it otherwise.
    const Role* check_known(const std::string& name, const SourceLocation& where, const std::string& path) {
        if (const Role* role = find(name)) return role;
        std::string hint = did_you_mean(name, names_);
        ctx_.error(where, path, "unknown role `" + name + "`",
                   hint.empty() ? "roles are defined under `roles:`" : hint);
        return nullptr;
    }

    void link_router(std::size_t i) {
        const RoleRefs& refs = refs_[i];
        link_router_list(i, SglangMode::Prefill, roles_[i].prefill_roles, refs.prefill,
                         refs.prefill_explicit ? &refs.prefill_list : nullptr);
        link_router_list(i, SglangMode::Decode, roles_[i].decode_roles, refs.decode,
                         refs.decode_explicit ? &refs.decode_list : nullptr);
    }

    // `list_where` is the position of an explicit list, null when the list is left to the default.
    void link_router_list(std::size_t i, SglangMode mode, std::vector<std::string>& list,
                          const std::vector<SourceLocation>& where, const SourceLocation* list_where) {
        const bool is_explicit = list_where != nullptr;
        const std::string key = to_string(mode);
        const std::string path = "roles." + roles_[i].name + "." + key;
        if (!is_explicit) list = names_of(roles_, mode);  // by default a router serves every group
        for (std::size_t j = 0; j < list.size() && is_explicit; ++j) {
            const std::string item_path = path + "[" + std::to_string(j) + "]";
            const Role* target = check_known(list[j], where[j], item_path);
            if (target && !is_sglang(*target, mode)) {
                const std::string actual = target->kind == RoleKind::Sglang && target->mode
                                               ? "sglang " + to_string(*target->mode)
                                               : to_string(target->kind);
                ctx_.error(where[j], item_path, "role `" + list[j] + "` is " + actual + ", not sglang " + key,
                           "list roles with kind: sglang and mode: " + key);
            }
        }
        if (list.empty()) {
            ctx_.error(is_explicit ? *list_where : roles_[i].where, path,
                       "the router has no " + key + " role",
                       "define a role with kind: sglang and mode: " + key);
        }
    }

    void check_explicit_dependencies(std::size_t i) {
        const Role& role = roles_[i];
        for (std::size_t j = 0; j < role.depends_on.size(); ++j) {
            const std::string path = "roles." + role.name + ".depends_on[" + std::to_string(j) + "]";
            const std::string& name = role.depends_on[j];
            const Role* target = check_known(name, refs_[i].depends_on[j], path);
            if (!target) continue;
            if (name == role.name) {
                ctx_.error(refs_[i].depends_on[j], path, "a role cannot depend on itself");
                continue;
            }
            check_gate(role, *target, refs_[i].depends_on_gate[j], path);
        }
    }

    // Only a prefill group runs a bootstrap server (SGLang starts it in the prefill's TokenizerManager;
    // docs/config.md, "Gates").
    void check_gate(const Role& role, const Role& target, const SourceLocation& where,
                    const std::string& path) {
        if (role.gate_on(target.name) != DependencyGate::Bootstrap || is_sglang(target, SglangMode::Prefill))
            return;
        const std::string actual = target.kind == RoleKind::Sglang && target.mode
                                       ? "sglang " + to_string(*target.mode)
                                       : to_string(target.kind);
        ctx_.error(where, path + ".gate",
                   "gate `bootstrap` needs an sglang prefill role; `" + target.name + "` is " + actual,
                   "only prefill rank 0 runs a bootstrap server; use gate `ready` or `started`");
    }

    // The runbook's order: mooncake-master -> prefill -> decode -> router (P before D is a hard rule).
    std::vector<std::string> derived_dependencies(const Role& role) const {
        std::vector<std::string> deps;
        if (role.kind == RoleKind::Sglang && role.mode == SglangMode::Prefill) {
            for (const auto& other : roles_) {
                if (other.kind == RoleKind::MooncakeMaster) deps.push_back(other.name);
            }
        } else if (role.kind == RoleKind::Sglang && role.mode == SglangMode::Decode) {
            deps = names_of(roles_, SglangMode::Prefill);
        } else if (role.kind == RoleKind::Router) {
            for (const auto& list : {role.prefill_roles, role.decode_roles}) {
                for (const auto& name : list) {
                    if (find(name) && std::find(deps.begin(), deps.end(), name) == deps.end())
                        deps.push_back(name);
                }
            }
        }
        return deps;
    }

    // Depth-first search; a dependency on a role still on the stack closes a cycle.
    void report_cycles() {
        std::vector<int> state(roles_.size(), 0);  // 0 = unvisited, 1 = on the stack, 2 = done
        in_reported_cycle_.assign(roles_.size(), false);
        std::vector<std::size_t> stack;
        for (std::size_t i = 0; i < roles_.size(); ++i) visit(i, state, stack);
    }

    void visit(std::size_t i, std::vector<int>& state, std::vector<std::size_t>& stack) {
        if (state[i] != 0) return;
        state[i] = 1;
        stack.push_back(i);
        for (const auto& name : roles_[i].depends_on) {
            const auto it = index_.find(name);
            if (it == index_.end() || it->second == i) continue;  // reported already
            if (state[it->second] == 1) {
                // One report per role: the cycles through it share the fix, and a derived
                // dependency on a group would otherwise repeat the same cycle once per group.
                if (!in_reported_cycle_[it->second]) report_cycle(stack, it->second);
            } else {
                visit(it->second, state, stack);
            }
        }
        stack.pop_back();
        state[i] = 2;
    }

    void report_cycle(const std::vector<std::size_t>& stack, std::size_t first) {
        const auto start = std::find(stack.begin(), stack.end(), first);
        std::string text;
        bool derived = false;
        for (auto it = start; it != stack.end(); ++it) {
            in_reported_cycle_[*it] = true;
            text += roles_[*it].name + " -> ";
            derived = derived || !roles_[*it].depends_on_explicit;
        }
        text += roles_[first].name;
        const Role& role = roles_[first];
        ctx_.error(role.where, "roles." + role.name + ".depends_on", "dependency cycle: " + text,
                   derived ? "roles without depends_on follow mooncake-master -> prefill -> decode -> router"
                           : "remove one of these dependencies");
    }

    std::vector<Role>& roles_;
    const std::vector<RoleRefs>& refs_;
    const YamlContext& ctx_;
    std::map<std::string, std::size_t> index_;
    std::vector<std::string> names_;
    std::vector<bool> in_reported_cycle_;
};

}  // namespace

void link_roles(std::vector<Role>& roles, const std::vector<RoleRefs>& refs, const YamlContext& ctx) {
    Linker(roles, refs, ctx).run();
}

}  // namespace pdctl::config::detail

#include "pdctl/config/detail/role_loader.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "pdctl/config/detail/slurm_loader.hpp"
#include "pdctl/config/mooncake_master_version.hpp"
#include "pdctl/config/mooncake_version.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::config::detail {

namespace {

// Which kinds accept a key, as bits, so one table explains both "unknown key" and "this key
// belongs to another kind".
enum KindBits : unsigned {
    kMaster = 1u << 0,
    kSglang = 1u << 1,
    kRouter = 1u << 2,
    kGeneric = 1u << 3,
    kAllKinds = kMaster | kSglang | kRouter | kGeneric,
};

struct KeySpec {
    const char* key;
    unsigned kinds;
    bool prefill_only = false;
};

constexpr KeySpec kRoleKeys[] = {
    {"kind", kAllKinds},
    {"mode", kSglang},
    {"nodes", kAllKinds},
    {"groups", kSglang},
    {"profile", kAllKinds},
    {"env", kAllKinds},
    {"args", kAllKinds},
    {"program", kMaster | kSglang | kRouter},  // generic has `command`, the whole argv
    {"host", kAllKinds},
    {"port", kAllKinds},
    {"metrics_port", kMaster},
    {"version", kMaster},
    {"model_path", kSglang},
    {"tp_size", kSglang},
    {"ep_size", kSglang},
    {"gpus_per_node", kSglang},
    {"bootstrap_port", kSglang, true},
    {"dist_init_port", kSglang},
    {"transfer_backend", kSglang},
    {"impl", kRouter},
    {"mini_lb", kRouter},  // the older spelling of impl: minilb (true) / sglang-router (false)
    {"entry", kSglang},
    {"prefill", kRouter},
    {"decode", kRouter},
    {"command", kGeneric},
    {"health", kAllKinds},
    {"depends_on", kAllKinds},
    {"runtime", kAllKinds},
    {"container", kAllKinds},
    {"stop_grace_seconds", kAllKinds},
    {"stall_after", kSglang},
    {"py_spy", kSglang},
    {"cache", kSglang},
};

const std::vector<std::pair<std::string, RoleKind>> kKinds = {{"mooncake-master", RoleKind::MooncakeMaster},
                                                              {"sglang", RoleKind::Sglang},
                                                              {"router", RoleKind::Router},
                                                              {"generic", RoleKind::Generic}};
const std::vector<std::pair<std::string, SglangMode>> kModes = {{"prefill", SglangMode::Prefill},
                                                                {"decode", SglangMode::Decode}};
const std::vector<std::pair<std::string, RouterImpl>> kRouterImpls = {
    {"minilb", RouterImpl::MiniLb}, {"sglang-router", RouterImpl::SglangRouter}, {"smg", RouterImpl::Smg}};
const std::vector<std::pair<std::string, SglangEntry>> kEntries = {
    {"launch_server", SglangEntry::LaunchServer}, {"serve", SglangEntry::Serve}};
const std::vector<std::string> kTransferBackends = {"mooncake", "nixl", "ascend",
                                                    "fake",     "mori", "mooncake_tcp"};

unsigned bit_of(RoleKind kind) {
    switch (kind) {
        case RoleKind::MooncakeMaster:
            return kMaster;
        case RoleKind::Sglang:
            return kSglang;
        case RoleKind::Router:
            return kRouter;
        case RoleKind::Generic:
            return kGeneric;
    }
    return 0;
}

bool accepts(const KeySpec& spec, std::optional<RoleKind> kind, std::optional<SglangMode> mode) {
    if (!kind) return true;  // the kind itself is wrong or missing: only flag keys nobody accepts
    if ((spec.kinds & bit_of(*kind)) == 0) return false;
    return !spec.prefill_only || mode != SglangMode::Decode;
}

// "only valid for kind sglang (mode prefill), not kind router"
std::string only_valid_for(const KeySpec& spec, RoleKind kind, std::optional<SglangMode> mode) {
    std::vector<std::string> kinds;
    for (const auto& [name, value] : kKinds) {
        if (spec.kinds & bit_of(value)) kinds.push_back(name);
    }
    std::string text = kinds.size() == 1 ? "only valid for kind " : "only valid for kinds ";
    for (std::size_t i = 0; i < kinds.size(); ++i) text += (i == 0 ? "" : ", ") + kinds[i];
    if (spec.prefill_only) text += " (mode prefill)";
    if (kind == RoleKind::Sglang && mode) return text + ", not mode " + to_string(*mode);
    return text + ", not kind " + to_string(kind);
}

// One node name of `nodes:` or of a group: a defined node, not already holding a rank of this role.
void read_node_item(const LoadContext& ctx, const Item& item, const std::string& path,
                    const std::vector<std::string>& defined, const std::vector<std::string>& taken,
                    std::vector<std::string>& into) {
    const auto& name = item.value;
    if (std::find(defined.begin(), defined.end(), name) == defined.end()) {
        std::string hint = did_you_mean(name, defined);
        ctx.yaml.error(item.where, path, "unknown node `" + name + "`",
                       hint.empty() ? "nodes are defined under `nodes:`" : hint);
    } else if (std::find(taken.begin(), taken.end(), name) != taken.end()) {
        ctx.yaml.error(item.where, path, "node `" + name + "` is listed twice",
                       "a node holds one rank of a role");
    }
    into.push_back(name);
}

// `nodes: [n1, n2]`, one group whose first node is rank 0, or (sglang) `groups: [[n1, n2], [n3, n4]]`,
// several groups, each with its own rank 0. `groups` is left empty for the one-group form.
void read_placement(const LoadContext& ctx, const MapReader& m, const std::vector<Node>& nodes, Role& role,
                    std::vector<std::vector<std::string>>& groups) {
    std::vector<std::string> defined;
    for (const auto& node : nodes) defined.push_back(node.name);
    const auto* groups_entry = m.find("groups");
    if (!groups_entry) {
        std::vector<Item> items;
        if (!m.require("nodes", "the nodes this role runs on; the first is rank 0") ||
            !m.items("nodes", items))
            return;
        items = allocation_items(ctx, items, nodes, m.child_path("nodes"));
        if (items.empty())
            ctx.yaml.error(m.find("nodes")->value_where, m.child_path("nodes"), "needs at least one node");
        for (std::size_t i = 0; i < items.size(); ++i)
            read_node_item(ctx, items[i], m.child_path("nodes") + "[" + std::to_string(i) + "]", defined,
                           role.nodes, role.nodes);
        return;
    }
    const std::string path = m.child_path("groups");
    if (const auto* both = m.find("nodes")) {
        ctx.yaml.error(both->key_where, m.child_path("nodes"), "`nodes` and `groups` are both given",
                       "`nodes: [...]` is one group; with several, list each under `groups:`");
    }
    const YAML::Node& list = groups_entry->value;
    if (!list.IsSequence() || list.size() == 0) {
        ctx.yaml.error(groups_entry->value_where, path,
                       list.IsSequence() ? "needs at least one group"
                                         : "expected a list of node lists, got " + describe(list),
                       "e.g. groups: [[n1, n2, n3, n4], [n9, n10, n11, n12]]");
        return;
    }
    for (std::size_t g = 0; g < list.size(); ++g) {
        const std::string group_path = path + "[" + std::to_string(g) + "]";
        const auto where = ctx.yaml.at(list[g], groups_entry->value_where);
        if (!list[g].IsSequence()) {
            ctx.yaml.error(where, group_path, "expected a list of nodes, got " + describe(list[g]),
                           "each group is a list whose first node is its rank 0");
            continue;
        }
        auto items = as_items(ctx.yaml, list[g], where, group_path, false);
        if (!items) continue;
        *items = allocation_items(ctx, *items, nodes, group_path);
        if (items->empty()) ctx.yaml.error(where, group_path, "needs at least one node");
        groups.emplace_back();
        for (std::size_t i = 0; i < items->size(); ++i)
            read_node_item(ctx, (*items)[i], group_path + "[" + std::to_string(i) + "]", defined, role.nodes,
                           groups.back());
        // role.nodes collects every group's nodes while reading, so a node in two groups is caught.
        role.nodes.insert(role.nodes.end(), groups.back().begin(), groups.back().end());
    }
}

void read_health(const LoadContext& ctx, const MapReader& m, std::optional<RoleKind> kind, Role& role) {
    const auto* entry = m.find("health");
    const char* generic_hint = "kind generic has no default health check: set health.path and health.port";
    if (!entry) {
        if (kind == RoleKind::Generic) m.require("health", generic_hint);
        return;
    }
    MapReader health(ctx.yaml, entry->value, m.child_path("health"), entry->value_where);
    health.check_keys({"path", "port", "expect_status", "deadline", "interval"});
    health.string("path", role.health.path);
    health.port("port", role.health.port);
    health.integer("expect_status", role.health.expect_status, 100, 599);
    health.duration("deadline", role.health.deadline);
    health.duration("interval", role.health.interval);
    if (kind == RoleKind::Generic) {
        health.require("path", generic_hint);
        health.require("port", generic_hint);
    }
    if (!role.health.path.empty() && role.health.path[0] != '/') {
        ctx.yaml.error(health.find("path")->value_where, health.child_path("path"), "must start with `/`");
    }
}

void read_kind_specific(const MapReader& m, Role& role) {
    m.port("metrics_port", role.metrics_port);
    if (m.string("version", role.mooncake_version) && !parse_mooncake_version(role.mooncake_version)) {
        m.context().error(m.find("version")->value_where, m.child_path("version"),
                          "not a Mooncake version: `" + role.mooncake_version + "`",
                          "e.g. 0.3.12.post1, as `pip show mooncake-transfer-engine` prints it");
        role.mooncake_version.clear();
    }
    m.string("model_path", role.model_path);
    m.integer("tp_size", role.tp_size, 1, 65536);
    m.integer("ep_size", role.ep_size, 1, 65536);
    m.integer("gpus_per_node", role.gpus_per_node, 1, 1024);
    m.port("bootstrap_port", role.bootstrap_port);
    m.port("dist_init_port", role.dist_init_port);
    if (const auto index = m.choice("transfer_backend", kTransferBackends)) {
        role.transfer_backend = kTransferBackends[*index];
    }
    m.choice("entry", role.entry, kEntries);
}

// Without `impl:`, the image says which router it carries: SMG's own images (lightseekorg/smg,
// smg-project) run SMG, sgl-model-gateway's run the Rust router, and anything else (deploy_pd.sh's
// lmsysorg/sglang) the MiniLB deploy_pd.sh runs.
RouterImpl router_implied_by(const Role& role, std::string& reason) {
    const std::string image = util::lower(role.container.image);
    const std::string name = image.substr(0, image.find(':'));
    if (role.runtime == RuntimeKind::Docker && !name.empty()) {
        if (name.find("smg") != std::string::npos) {
            reason = "image " + role.container.image + " is SMG's";
            return RouterImpl::Smg;
        }
        if (name.find("sgl-model-gateway") != std::string::npos ||
            name.find("sglang-router") != std::string::npos) {
            reason = "image " + role.container.image + " is the Rust router's";
            return RouterImpl::SglangRouter;
        }
        reason = "image " + role.container.image + " names no router: the MiniLB deploy_pd.sh runs";
        return RouterImpl::MiniLb;
    }
    reason = "the MiniLB deploy_pd.sh runs (no impl: given)";
    return RouterImpl::MiniLb;
}

// `impl:`, else the older `mini_lb:`, else what the image implies; both given must agree.
void read_router_impl(const LoadContext& ctx, const MapReader& m, Role& role) {
    if (role.kind != RoleKind::Router) return;
    const auto* impl = m.find("impl");
    const auto* legacy = m.find("mini_lb");
    bool mini_lb = false;
    const bool legacy_read = legacy && m.boolean("mini_lb", mini_lb);
    if (impl) {
        if (!m.choice("impl", role.router_impl, kRouterImpls)) return;
        if (legacy_read && mini_lb != (role.router_impl == RouterImpl::MiniLb)) {
            ctx.yaml.error(legacy->value_where, m.child_path("mini_lb"),
                           std::string("mini_lb: ") + (mini_lb ? "true" : "false") +
                               " contradicts impl: " + impl->value.as<std::string>(),
                           "drop mini_lb: impl says which router runs");
        }
        return;
    }
    if (legacy_read) {
        role.router_impl = mini_lb ? RouterImpl::MiniLb : RouterImpl::SglangRouter;
        role.router_impl_reason = std::string("mini_lb: ") + (mini_lb ? "true" : "false");
        return;
    }
    if (!legacy) role.router_impl = router_implied_by(role, role.router_impl_reason);
}

void read_role_refs(const MapReader& m, Role& role, RoleRefs& refs) {
    read_depends_on(m, role, refs);
    std::vector<Item> items;
    if (m.items("prefill", items)) {
        refs.prefill_explicit = true;
        refs.prefill_list = m.find("prefill")->value_where;
        for (auto& item : items) {
            role.prefill_roles.push_back(item.value);
            refs.prefill.push_back(item.where);
        }
    }
    if (m.items("decode", items)) {
        refs.decode_explicit = true;
        refs.decode_list = m.find("decode")->value_where;
        for (auto& item : items) {
            role.decode_roles.push_back(item.value);
            refs.decode.push_back(item.where);
        }
    }
}

}  // namespace

Role load_role(const LoadContext& ctx, const MapReader::Entry& entry, const RoleDefaults& defaults,
               const std::vector<Node>& nodes, RoleRefs& refs,
               std::vector<std::vector<std::string>>& groups) {
    Role role;
    role.name = entry.key;
    role.where = entry.key_where;
    role.runtime = defaults.runtime;
    role.container = defaults.container;
    role.gpus_per_node = defaults.gpus_per_node;
    role.stop_grace_seconds = defaults.stop_grace_seconds;
    role.stall_after = defaults.stall_after;
    const std::string path = "roles." + role.name;
    if (!is_valid_name(role.name)) ctx.yaml.error(entry.key_where, path, "invalid role name", kNameRule);

    MapReader m(ctx.yaml, entry.value, path, entry.value_where);
    if (!m.is_map()) return role;

    // The kind (and an sglang role's mode) decide which other keys are valid, so they come first.
    std::optional<RoleKind> kind;
    std::optional<SglangMode> mode;
    if (m.require("kind", "one of mooncake-master, sglang, router, generic")) {
        RoleKind value{};
        if (m.choice("kind", value, kKinds)) kind = value;
    }
    if (kind) role.kind = *kind;
    if (kind == RoleKind::Sglang && m.require("mode", "prefill or decode")) {
        SglangMode value{};
        if (m.choice("mode", value, kModes)) mode = value;
    }
    role.mode = mode;

    std::vector<std::string> allowed;
    for (const auto& spec : kRoleKeys) {
        if (accepts(spec, kind, mode)) allowed.emplace_back(spec.key);
    }
    m.check_keys(allowed, [&](const std::string& key) {
        const auto* spec = std::find_if(std::begin(kRoleKeys), std::end(kRoleKeys),
                                        [&](const KeySpec& candidate) { return key == candidate.key; });
        if (!kind || spec == std::end(kRoleKeys)) return std::string{};  // plainly unknown
        return only_valid_for(*spec, *kind, mode);
    });

    read_placement(ctx, m, nodes, role, groups);
    m.strings("program", role.program);
    m.strings("args", role.args);
    m.string("host", role.host);
    m.port("port", role.port);
    read_kind_specific(m, role);
    read_role_refs(m, role, refs);
    if (kind == RoleKind::Generic &&
        m.require("command", "the program's full argv, e.g. [python3, server.py]") &&
        m.strings("command", role.command) && role.command.empty()) {
        ctx.yaml.error(m.find("command")->value_where, m.child_path("command"), "must not be empty");
    }
    read_health(ctx, m, kind, role);
    m.choice("runtime", role.runtime, {{"docker", RuntimeKind::Docker}, {"process", RuntimeKind::Process}});
    read_container(m, role.container);
    read_router_impl(ctx, m, role);
    m.integer("stop_grace_seconds", role.stop_grace_seconds, 0, 24 * 60 * 60);
    m.duration("stall_after", role.stall_after);
    // The compiled kernels are SGLang's: the other kinds compile nothing worth keeping.
    if (role.kind == RoleKind::Sglang) {
        role.cache_dir = defaults.cache_dir;
        read_cache_dir(m, role.cache_dir);
    }
    if (m.strings("py_spy", role.py_spy) && role.py_spy.empty()) {
        ctx.yaml.error(m.find("py_spy")->value_where, m.child_path("py_spy"), "must not be empty",
                       "the py-spy program, e.g. [py-spy] or [/opt/venv/bin/py-spy]");
        role.py_spy = {"py-spy"};
    }
    if (role.runtime == RuntimeKind::Docker && role.container.image.empty()) {
        const auto* container = m.find("container");
        ctx.yaml.error(
            container ? container->value_where : m.where(), path + ".container.image",
            "runtime docker needs a container image",
            "set defaults.container.image or " + path + ".container.image, or use runtime: process");
    }
    load_role_environment(ctx, m, role);
    if (role.kind == RoleKind::MooncakeMaster) {
        if (!role.mooncake_version.empty()) {
            role.mooncake_version_source = "version:";
        } else if (auto shown = mooncake_version_shown(role)) {
            role.mooncake_version = std::move(shown->version);
            role.mooncake_version_source = std::move(shown->source);
        }
    }
    return role;
}

}  // namespace pdctl::config::detail

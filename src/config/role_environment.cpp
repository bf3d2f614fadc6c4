// A role's environment: its profile files (the old deployment's per-role .env files) and `env:`.

#include <algorithm>

#include "pdctl/config/detail/env_parser.hpp"
#include "pdctl/config/detail/role_loader.hpp"
#include "pdctl/config/shell_words.hpp"

namespace pdctl::config::detail {

namespace {

// Profile keys that configure pdctl itself rather than the server's environment.
constexpr const char* kBootstrap = "BOOTSTRAP";
constexpr const char* kExtraArgs = "EXTRA_ARGS";
constexpr const char* kModelPath = "MODEL_PATH";

struct ProfileVar {
    EnvVar var;
    std::string key_path;  // roles.<role>.profile[<file>].<KEY>
};

// A later definition replaces an earlier one in place: one entry per key, like sourcing in order.
template <typename T, typename KeyOf>
void upsert(std::vector<T>& list, T value, KeyOf key_of) {
    const auto it =
        std::find_if(list.begin(), list.end(), [&](const T& item) { return key_of(item) == key_of(value); });
    if (it != list.end()) {
        *it = std::move(value);
    } else {
        list.push_back(std::move(value));
    }
}

void upsert_env(std::vector<EnvVar>& env, EnvVar var) {
    upsert(env, std::move(var), [](const EnvVar& item) -> const std::string& { return item.key; });
}

std::vector<ProfileVar> read_profiles(const LoadContext& ctx, const MapReader& m, Role& role) {
    std::vector<ProfileVar> merged;
    std::vector<Item> profiles;
    m.items("profile", profiles, /*allow_scalar=*/true);
    for (const auto& item : profiles) {
        // Later files see the keys of earlier ones, which shadow the shared env_files.
        std::vector<EnvVar> base = ctx.shared_env;
        for (const auto& entry : merged) base.push_back(entry.var);
        const auto file = load_env_file(ctx, item, m.child_path("profile"), base);
        if (!file) continue;
        role.profile_files.push_back(file->path);
        for (const auto& var : file->vars) {
            const std::string key_path = m.child_path("profile") + "[" + item.value + "]." + var.key;
            upsert(merged, ProfileVar{var, key_path},
                   [](const ProfileVar& entry) -> const std::string& { return entry.var.key; });
        }
    }
    return merged;
}

// BOOTSTRAP and EXTRA_ARGS end up in argv, which `plan`, `ps` and logs show: a secret expanded
// into them at load time would leak, so it must reach the server through its environment.
bool reject_secret_in_argv(const LoadContext& ctx, const ProfileVar& entry) {
    if (!entry.var.secret) return false;
    ctx.yaml.error(entry.var.where, entry.key_path, "expands a secret into the command line",
                   "single-quote it so the server's shell expands the variable from its environment");
    return true;
}

void apply_profile_var(const LoadContext& ctx, const ProfileVar& entry, Role& role,
                       std::vector<std::string>& extra_args) {
    const EnvVar& var = entry.var;
    if (!var.assumption.empty()) role.assumptions.push_back({var.key, var.assumption, var.where});
    if (var.key == kBootstrap) {
        if (!reject_secret_in_argv(ctx, entry)) role.bootstrap = var.value;
        return;
    }
    if (var.key == kExtraArgs) {
        if (reject_secret_in_argv(ctx, entry)) return;
        auto split = split_shell_words(var.value);
        if (!split.error.empty()) {
            ctx.yaml.error(var.where, entry.key_path, split.error + " in the arguments",
                           "EXTRA_ARGS is split into words like a shell command line");
            return;
        }
        extra_args = std::move(split.words);
        role.extra_args_where = var.where;
        return;
    }
    if (var.value.find('\n') != std::string::npos) {
        ctx.yaml.error(var.where, entry.key_path, "value contains a newline",
                       "only BOOTSTRAP may span lines");
        return;
    }
    if (var.key == kModelPath && role.model_path.empty())
        role.model_path = var.value;  // YAML model_path wins
    upsert_env(role.env, var);
}

bool is_secret(const LoadContext& ctx, const std::string& key) {
    return looks_secret(key) ||
           std::find(ctx.secret_keys.begin(), ctx.secret_keys.end(), key) != ctx.secret_keys.end();
}

// `env:` in the YAML: literal values (no expansion), after the profiles' variables.
void read_yaml_env(const LoadContext& ctx, const MapReader& m, Role& role) {
    const auto* entry = m.find("env");
    if (!entry) return;
    MapReader env(ctx.yaml, entry->value, m.child_path("env"), entry->value_where);
    for (const auto& item : env.entries()) {
        const std::string path = env.child_path(item.key);
        if (!is_valid_env_key(item.key)) {
            ctx.yaml.error(item.key_where, path, "invalid environment variable name",
                           "letters, digits and `_`, not starting with a digit");
            continue;
        }
        if (item.key == kBootstrap || item.key == kExtraArgs) {
            ctx.yaml.error(item.key_where, path, "is read from profile files only",
                           item.key == kBootstrap ? "put BOOTSTRAP in the role's profile file"
                                                  : "use the role's `args:` list");
            continue;
        }
        const auto value = as_string(ctx.yaml, item.value, item.value_where, path);
        if (!value) continue;
        if (value->find('\n') != std::string::npos) {
            ctx.yaml.error(item.value_where, path, "value contains a newline",
                           "only BOOTSTRAP may span lines");
            continue;
        }
        upsert_env(role.env, EnvVar{item.key, *value, is_secret(ctx, item.key), item.value_where, {}});
    }
}

}  // namespace

void load_role_environment(const LoadContext& ctx, const MapReader& role_map, Role& role) {
    std::vector<std::string> extra_args;
    for (const auto& entry : read_profiles(ctx, role_map, role))
        apply_profile_var(ctx, entry, role, extra_args);
    role.extra_args_at = role.args.size();
    role.args.insert(role.args.end(), extra_args.begin(), extra_args.end());
    read_yaml_env(ctx, role_map, role);
}

}  // namespace pdctl::config::detail

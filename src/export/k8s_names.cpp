#include "k8s_names.hpp"

#include <cctype>
#include <set>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::exporter::detail {
namespace {

// LeaderWorkerSet and RoleBasedGroup name their StatefulSets and pods <object>-<group>-<index>, and
// the StatefulSet's revision label <name>-<10-char hash> must stay a 63-character label.
constexpr std::size_t kMaxObjectName = 50;

// A pdctl role name (letters, digits, `.`, `_`, `-`) as a DNS label: lower case, `.`/`_` as `-`.
std::string dns_label(const std::string& name) {
    std::string label;
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        label += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
    }
    return label;
}

bool valid_label(const std::string& label) {
    return !label.empty() && std::isalnum(static_cast<unsigned char>(label.front())) &&
           std::isalnum(static_cast<unsigned char>(label.back()));
}

}  // namespace

const config::Role& role_of(const config::Cluster& cluster, const plan::Stage& stage) {
    const auto* role = cluster.find_role(stage.role);
    if (!role) throw Failure(ExitCode::kInternal, "plan stage " + stage.role + " has no role in the config");
    return *role;
}

std::map<std::string, StageNames> stage_names(const config::Cluster& cluster, const plan::Plan& plan,
                                              const K8sOptions& options) {
    for (const auto& [name, image] : options.role_images) {
        bool known = false;
        for (const auto& role : cluster.roles) known = known || role.entry_name() == name;
        if (!known)
            throw Failure(ExitCode::kUsage, "--image " + name + "=" + image + ": " + cluster.config_path +
                                                " has no role " + name);
    }
    config::Diagnostics diagnostics;
    std::map<std::string, StageNames> names;
    std::map<std::string, std::string> taken;  // DNS label → the stage that has it
    std::set<std::string> imageless;           // `roles:` keys already reported (groups share one)
    for (const auto& stage : plan.stages) {
        const auto& role = role_of(cluster, stage);
        const std::string key = "roles." + role.entry_name();
        StageNames out;
        out.role = dns_label(stage.role);
        out.object = cluster.name + "-" + out.role;
        if (!valid_label(out.role))
            diagnostics.error(role.where, key, "`" + stage.role + "` does not make a Kubernetes name",
                              "start and end the role name with a letter or digit");
        else if (out.object.size() > kMaxObjectName)
            diagnostics.error(role.where, key,
                              "`" + out.object + "` is longer than " + std::to_string(kMaxObjectName) +
                                  " characters, too long for the names Kubernetes derives from it",
                              "a shorter cluster or role name");
        else if (const auto [other, fresh] = taken.emplace(out.role, stage.role); !fresh)
            diagnostics.error(role.where, key,
                              "`" + stage.role + "` and `" + other->second + "` are both `" + out.role +
                                  "` as Kubernetes names",
                              "rename one of them");
        if (const auto image = options.role_images.find(role.entry_name());
            image != options.role_images.end()) {
            out.image = image->second;
        } else if (stage.runtime.kind == config::RuntimeKind::Docker) {
            out.image = stage.runtime.image;
        } else {
            out.image = options.image;
        }
        out.whole_command = stage.runtime.kind == config::RuntimeKind::Process;
        if (out.image.empty() && imageless.insert(role.entry_name()).second)
            diagnostics.error(
                role.where, key, "runs as a process (runtime: process), and a pod needs a container image",
                "pass --image IMAGE for every such role, or --image " + role.entry_name() + "=IMAGE");
        names.emplace(stage.role, out);
    }
    if (!diagnostics.empty()) throw config::ConfigError(diagnostics.items());
    return names;
}

}  // namespace pdctl::exporter::detail

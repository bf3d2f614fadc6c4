// PD017: `pdctl stack` runs py-spy inside an sglang role's container, and py-spy must ptrace the rank:
// without CAP_SYS_PTRACE (or --privileged) every dump fails with "Permission Denied" (sglang #33549),
// which is found out during the incident that needed it.

#include <algorithm>
#include <cctype>

#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

std::string upper(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
    return text;
}

// --privileged, or --cap-add SYS_PTRACE / CAP_SYS_PTRACE / ALL (as one word with '=' or two).
bool can_ptrace(const std::vector<std::string>& options) {
    for (std::size_t i = 0; i < options.size(); ++i) {
        const auto& option = options[i];
        if (option == "--privileged" || option == "--privileged=true") return true;
        std::string cap;
        if (option == "--cap-add" && i + 1 < options.size())
            cap = options[i + 1];
        else if (option.rfind("--cap-add=", 0) == 0)
            cap = option.substr(10);
        cap = upper(cap);
        if (cap == "SYS_PTRACE" || cap == "CAP_SYS_PTRACE" || cap == "ALL") return true;
    }
    return false;
}

}  // namespace

void check_stack_ptrace(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang || role.runtime != config::RuntimeKind::Docker) continue;
        if (role.group > 1 || can_ptrace(role.container.options)) continue;  // its groups share the options
        auto& finding = sink.add(Severity::Warn, role.entry_name(),
                                 role.entry_name() +
                                     "'s containers may not ptrace: `pdctl stack` (py-spy) will fail with "
                                     "Permission Denied when a rank hangs",
                                 "add `--cap-add, SYS_PTRACE` to container.options (or run it --privileged)");
        finding.location = role.where;
    }
}

}  // namespace pdctl::lint

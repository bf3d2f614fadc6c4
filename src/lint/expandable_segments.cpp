// PD001: PyTorch's expandable segments map GPU memory in 20 MiB chunks that Mooncake cannot register
// for RDMA ("Bad address [14]", Mooncake #2511). SGLang still comes up healthy and the failure shows
// only on the first KV transfer, 15 minutes into a start — so this is checked before anything runs.

#include <algorithm>
#include <cctype>
#include <regex>

#include "pdctl/lint/argv.hpp"
#include "pdctl/util/strings.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

// PyTorch reads the allocator settings from either name (PYTORCH_ALLOC_CONF is the newer one).
bool is_alloc_conf_key(std::string_view key) {
    return key == "PYTORCH_CUDA_ALLOC_CONF" || key == "PYTORCH_ALLOC_CONF";
}

std::string trimmed_lower(std::string text) {
    const auto not_space = [](unsigned char c) { return !std::isspace(c); };
    text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
    text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
    return util::lower(text);
}

// The value is a comma list of key:value options; `expandable_segments:False` is the one harmless
// spelling (it is the default), every other mention turns the feature on or makes PyTorch fail.
bool enables_expandable_segments(const std::string& value) {
    std::size_t start = 0;
    while (start <= value.size()) {
        const auto end = std::min(value.find(',', start), value.size());
        const std::string option = value.substr(start, end - start);
        const auto colon = option.find(':');
        if (trimmed_lower(option.substr(0, colon)) == "expandable_segments")
            return colon == std::string::npos || trimmed_lower(option.substr(colon + 1)) != "false";
        start = end + 1;
    }
    return false;
}

constexpr const char* kFix =
    "remove expandable_segments from the allocator settings (drop the option, or the whole variable) "
    "in every prefill and decode role";

constexpr const char* kConsequence =
    "Mooncake cannot register such memory for RDMA (\"Bad address [14]\"): the server starts healthy and KV "
    "transfers fail later";

}  // namespace

void check_expandable_segments(const RuleInput& input, FindingSink& sink) {
    static const std::regex in_shell(R"((PYTORCH(?:_CUDA)?_ALLOC_CONF)=(["']?)([^\s"';&|]*)\2)");
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang) continue;
        for (const auto& var : role.env) {
            if (!is_alloc_conf_key(var.key) || !enables_expandable_segments(var.value)) continue;
            sink.add(Severity::Error, role.name,
                     role.name + " sets " + var.key + "=" + detail::shown(var) +
                         ", which enables expandable segments; " + kConsequence,
                     kFix)
                .location = var.where;
        }
        if (role.runtime == config::RuntimeKind::Docker) {
            for (const auto& [key, value] : container_env(role.container.options)) {
                if (!is_alloc_conf_key(key) || !enables_expandable_segments(value)) continue;
                sink.add(Severity::Error, role.name,
                         role.name + " passes `-e " + key + "=" + value +
                             "` in its container options, which enables expandable segments; " + kConsequence,
                         kFix)
                    .location = role.where;
            }
        }
        for (std::sregex_iterator it(role.bootstrap.begin(), role.bootstrap.end(), in_shell), end; it != end;
             ++it) {
            if (!enables_expandable_segments((*it)[3].str())) continue;
            sink.add(Severity::Error, role.name,
                     role.name + "'s BOOTSTRAP sets " + it->str() + ", which enables expandable segments; " +
                         kConsequence,
                     kFix)
                .location = detail::profile_location(role);
        }
    }
}

}  // namespace pdctl::lint

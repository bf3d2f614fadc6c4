// PD002: the runbook requires Mooncake 0.3.12.post1 inside the P/D containers (the dmabuf
// registration fix, Mooncake #2035); an older wheel or pin in BOOTSTRAP reinstalls the bug.

#include "pdctl/lint/mooncake_version.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {

void check_mooncake_version(const RuleInput& input, FindingSink& sink) {
    const auto minimum = *parse_version(kMinimumMooncake);
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang || !detail::uses_mooncake(input, role)) continue;
        for (const auto& install : mooncake_installs(role.bootstrap)) {
            if (compare(install.version, minimum) >= 0) continue;
            const std::string from =
                role.profile_files.empty() ? "" : " (profile " + detail::profile_names(role) + ")";
            sink.add(Severity::Error, role.name,
                     role.name + "'s BOOTSTRAP" + from + " installs Mooncake " + install.version.text +
                         " (`" + install.spelled + "`), older than " + kMinimumMooncake +
                         ", which has the dmabuf memory registration fix",
                     std::string("install mooncake-transfer-engine ") + kMinimumMooncake +
                         " or newer in BOOTSTRAP (e.g. the runbook's "
                         "mooncake_transfer_engine_cuda13-0.3.12.post1 wheel)")
                .location = detail::profile_location(role);
        }
        if (role.runtime != config::RuntimeKind::Docker) continue;
        const auto tag = mooncake_image_tag(role.container.image);
        const auto version = tag.empty() ? std::nullopt : parse_version(tag);
        if (!version || compare(*version, minimum) >= 0) continue;
        sink.add(Severity::Error, role.name,
                 role.name + " runs image " + role.container.image + ", Mooncake " + version->text +
                     ", older than " + kMinimumMooncake,
                 std::string("use a Mooncake ") + kMinimumMooncake + " or newer image")
            .location = role.where;
    }
}

}  // namespace pdctl::lint

// PD003: the runbook's image ships Mooncake 0.3.11.post1, which lacks the dmabuf registration fix,
// and the profiles upgrade it in BOOTSTRAP. A container role without any Mooncake install runs
// whatever the image ships; pdctl cannot see inside the image, so this is a warning.

#include "pdctl/lint/mooncake_version.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {

void check_mooncake_upgrade(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang || role.runtime != config::RuntimeKind::Docker) continue;
        if (!detail::uses_mooncake(input, role) || mentions_mooncake_package(role.bootstrap)) continue;
        sink.add(Severity::Warn, role.name,
                 role.name + " runs Mooncake from image " + role.container.image +
                     " without upgrading it in BOOTSTRAP; the runbook's image ships 0.3.11.post1, older "
                     "than " +
                     kMinimumMooncake,
                 std::string("add a BOOTSTRAP that installs mooncake-transfer-engine ") + kMinimumMooncake +
                     " or newer (pip install --no-deps --force-reinstall <wheel>), unless the image is known "
                     "to "
                     "ship it")
            .location = detail::profile_location(role);
    }
}

}  // namespace pdctl::lint

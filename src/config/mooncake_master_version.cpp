#include "pdctl/config/mooncake_master_version.hpp"

#include "pdctl/config/mooncake_installs.hpp"
#include "pdctl/config/mooncake_version.hpp"

namespace pdctl::config {

std::optional<ShownMooncakeVersion> mooncake_version_shown(const Role& role) {
    const auto installs = mooncake_installs(role.bootstrap);
    if (!installs.empty()) {
        // BOOTSTRAP runs before the master in its container, so what it installs last is what runs,
        // whatever the image carried.
        const auto& last = installs.back();
        if (!parse_mooncake_version(last.version.text)) return std::nullopt;
        return ShownMooncakeVersion{last.version.text, "BOOTSTRAP installs `" + last.spelled + "`"};
    }
    if (role.runtime != RuntimeKind::Docker) return std::nullopt;
    std::string tag = mooncake_image_tag(role.container.image);
    if (!tag.empty() && tag.front() == 'v') tag.erase(0, 1);
    if (!parse_mooncake_version(tag)) return std::nullopt;
    return ShownMooncakeVersion{tag, "image " + role.container.image};
}

}  // namespace pdctl::config

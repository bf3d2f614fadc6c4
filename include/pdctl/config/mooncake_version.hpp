#pragma once
// Mooncake release numbers as pip spells them ("0.3.12.post1", "0.3.4"), ordered, so that a flag can
// be chosen by the version that has it (mooncake_master_flags.hpp).

#include <array>
#include <optional>
#include <string>

namespace pdctl::config {

struct MooncakeVersion {
    std::array<int, 3> release{};  // major, minor, patch
    int post = 0;                  // ".postN"; 0 = none

    auto operator<=>(const MooncakeVersion&) const = default;
};

// nullopt for anything but MAJOR.MINOR.PATCH[.postN] (digits only).
std::optional<MooncakeVersion> parse_mooncake_version(const std::string& text);

}  // namespace pdctl::config

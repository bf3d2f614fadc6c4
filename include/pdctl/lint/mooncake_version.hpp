#pragma once
// Which Mooncake transfer engine a BOOTSTRAP installs. The runbook requires 0.3.12.post1 or newer
// (the dmabuf registration fix, Mooncake #2035); the image ships 0.3.11.post1.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::lint {

// A PEP 440 version in the subset Python packages publish: N(.N)*[{a|b|rc}N][.postN][.devN],
// ordered the way pip orders them (1.0.dev1 < 1.0a1 < 1.0 < 1.0.post1).
struct Version {
    std::vector<int> release;
    int pre_kind = -1;  // -1 none, 0 a, 1 b, 2 rc
    int pre = 0;
    int post = -1;     // -1 none
    int dev = -1;      // -1 none
    std::string text;  // as written
};

std::optional<Version> parse_version(std::string_view input);
// <0, 0, >0 like strcmp.
int compare(const Version& a, const Version& b);

// The oldest Mooncake the runbook accepts.
inline constexpr const char* kMinimumMooncake = "0.3.12.post1";

struct MooncakeInstall {
    std::string spelled;  // the wheel file name or requirement, as written
    Version version;
};

// Versioned Mooncake transfer-engine installs in a shell command: wheel files
// (mooncake_transfer_engine[_variant]-VERSION-....whl) and pins
// (mooncake-transfer-engine[-variant]==VERSION).
std::vector<MooncakeInstall> mooncake_installs(std::string_view shell);

// Whether the shell command mentions the Mooncake transfer engine package or a Mooncake wheel at
// all, versioned or not (`pip install -U mooncake-transfer-engine` installs the newest).
bool mentions_mooncake_package(std::string_view shell);

}  // namespace pdctl::lint

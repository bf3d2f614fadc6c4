#pragma once
// Which Mooncake a shell command (a role's BOOTSTRAP) or a container image installs, read from the
// text the config holds. PD002/PD003 check it against the runbook's minimum; the loader uses it to
// learn a mooncake-master's version when `version:` does not say (role_loader.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::config {

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

struct MooncakeInstall {
    std::string spelled;  // the wheel file name or requirement, as written
    Version version;
};

// Versioned Mooncake transfer-engine installs in a shell command, in the order they appear: wheel
// files (mooncake_transfer_engine[_variant]-VERSION-....whl) and pins
// (mooncake-transfer-engine[-variant]==VERSION).
std::vector<MooncakeInstall> mooncake_installs(std::string_view shell);

// Whether the shell command mentions the Mooncake transfer engine package or a Mooncake wheel at
// all, versioned or not (`pip install -U mooncake-transfer-engine` installs the newest).
bool mentions_mooncake_package(std::string_view shell);

// "kvcacheai/mooncake:v0.3.11" -> "v0.3.11" when the image is a Mooncake image, else "".
std::string mooncake_image_tag(const std::string& image);

}  // namespace pdctl::config

#pragma once
// A short stable fingerprint of a role's resolved launch spec, stored on the node with the running
// unit so `status` can tell "running, but started from a different config" (drift).
// FNV-1a is enough here: it detects change, it does not defend against an adversary.

#include <cstdint>
#include <string>
#include <string_view>

namespace pdctl::util {

std::uint64_t fnv1a64(std::string_view data);
// 12 hex digits of fnv1a64, the form shown to operators.
std::string short_fingerprint(std::string_view data);

}  // namespace pdctl::util

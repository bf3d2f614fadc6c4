#pragma once
// The two variables that pin NCCL and Gloo to one NIC (PD004-PD006), and how their values read:
// NCCL_SOCKET_IFNAME is a comma list of name prefixes (`=name` exact, `^list` excludes);
// GLOO_SOCKET_IFNAME is a comma list of exact names.

#include <array>
#include <string>
#include <vector>

namespace pdctl::lint {

inline constexpr std::array<const char*, 2> kSocketIfnameKeys = {"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"};

struct InterfaceSpec {
    bool exclude = false;  // NCCL `^...`: every interface except these
    struct Item {
        std::string name;
        bool exact = false;  // NCCL `=name`, and every Gloo item
    };
    std::vector<Item> items;
};

InterfaceSpec parse_interface_spec(const std::string& key, const std::string& value);

// The one interface a value names, when it names exactly one ("bond1", "=bond1"); "" otherwise.
std::string single_interface(const std::string& key, const std::string& value);

}  // namespace pdctl::lint

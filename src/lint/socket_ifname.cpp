#include "pdctl/lint/socket_ifname.hpp"

#include <algorithm>

namespace pdctl::lint {

InterfaceSpec parse_interface_spec(const std::string& key, const std::string& value) {
    const bool nccl = key == "NCCL_SOCKET_IFNAME";
    InterfaceSpec spec;
    std::string text = value;
    if (nccl && !text.empty() && text.front() == '^') {
        spec.exclude = true;
        text.erase(0, 1);
    }
    bool all_exact = !nccl;
    if (nccl && !text.empty() && text.front() == '=') {  // NCCL: `=` before the list makes it exact
        all_exact = true;
        text.erase(0, 1);
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, end - start);
        if (!name.empty()) spec.items.push_back({name, all_exact});
        start = end + 1;
    }
    return spec;
}

std::string single_interface(const std::string& key, const std::string& value) {
    const auto spec = parse_interface_spec(key, value);
    if (spec.exclude || spec.items.size() != 1) return {};
    return spec.items.front().name;
}

}  // namespace pdctl::lint

#include "pdctl/report/transport_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {
namespace {

bool same(const exec::TransportChoice& a, const exec::TransportChoice& b) {
    return a.transport == b.transport && a.reason == b.reason;
}

// Columns are counted in characters, not bytes: "–" is three bytes of UTF-8.
std::size_t display_width(const std::string& text) {
    std::size_t width = 0;
    for (const unsigned char c : text) width += (c & 0xC0) != 0x80;
    return width;
}

std::string run_of(const std::vector<NodeTransport>& nodes, std::size_t first, std::size_t last) {
    if (first == last) return nodes[first].node;
    if (last == first + 1) return nodes[first].node + ", " + nodes[last].node;
    return nodes[first].node + "–" + nodes[last].node;
}

}  // namespace

std::string render_transports_text(const std::vector<NodeTransport>& nodes) {
    if (nodes.empty()) return {};
    struct Line {
        std::string where, transport, reason;
    };
    std::vector<Line> lines;
    for (std::size_t first = 0; first < nodes.size();) {
        std::size_t last = first;
        while (last + 1 < nodes.size() && same(nodes[last + 1].choice, nodes[first].choice)) ++last;
        lines.push_back({run_of(nodes, first, last), exec::to_string(nodes[first].choice.transport),
                         nodes[first].choice.reason});
        first = last + 1;
    }
    std::size_t width = 0;
    for (const auto& line : lines) width = std::max(width, display_width(line.where));
    std::string out = "SSH transport of each node (ssh.transport; docs/ssh.md):\n";
    for (const auto& line : lines)
        out += fmt::format("  {}{}  {:<7}  {}\n", line.where,
                           std::string(width - display_width(line.where), ' '), line.transport, line.reason);
    return out;
}

nlohmann::json transports_to_json(const std::vector<NodeTransport>& nodes) {
    auto out = nlohmann::json::array();
    for (const auto& node : nodes)
        out.push_back({{"node", node.node},
                       {"transport", exec::to_string(node.choice.transport)},
                       {"reason", node.choice.reason},
                       {"automatic", node.choice.automatic}});
    return out;
}

}  // namespace pdctl::report

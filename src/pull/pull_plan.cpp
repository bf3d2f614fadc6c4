#include "pdctl/pull/pull_plan.hpp"

#include <algorithm>
#include <map>

#include "pdctl/util/strings.hpp"

namespace pdctl::pull {
namespace {

bool selected(const std::vector<std::string>& filter, const std::string& name) {
    return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

bool is_hex(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
}

}  // namespace

std::vector<NodeImages> plan_pull(const config::Cluster& cluster, const PullFilter& filter) {
    std::vector<NodeImages> plan;
    for (const auto& node : cluster.nodes) {
        if (!selected(filter.nodes, node.name)) continue;
        NodeImages entry{node, {}};
        for (const auto& role : cluster.roles) {
            if (role.runtime != config::RuntimeKind::Docker || role.container.image.empty()) continue;
            if (!selected(filter.roles, role.name)) continue;
            if (std::find(role.nodes.begin(), role.nodes.end(), node.name) == role.nodes.end()) continue;
            const ImageRef ref{role.container.image, role.container.cli};
            if (std::find(entry.images.begin(), entry.images.end(), ref) == entry.images.end())
                entry.images.push_back(ref);
        }
        if (!entry.images.empty()) plan.push_back(std::move(entry));
    }
    return plan;
}

std::vector<std::string> unknown_names(const config::Cluster& cluster, const PullFilter& filter) {
    std::vector<std::string> unknown;
    for (const auto& role : filter.roles)
        if (!cluster.find_role(role)) unknown.push_back("role '" + role + "'");
    for (const auto& node : filter.nodes)
        if (!cluster.find_node(node)) unknown.push_back("node '" + node + "'");
    return unknown;
}

exec::Command pull_command(const ImageRef& ref, std::chrono::milliseconds timeout) {
    exec::Command command;
    command.argv = {ref.cli, "pull", ref.image};
    command.timeout = timeout;
    return command;
}

exec::Command image_id_command(const ImageRef& ref) {
    exec::Command command;
    command.argv = {ref.cli, "image", "inspect", "--format", "{{.Id}}", ref.image};
    command.timeout = std::chrono::seconds(60);
    return command;
}

std::string parse_image_id(const std::string& output) {
    const auto id = std::string(util::trim(output));
    const auto hex = id.rfind("sha256:", 0) == 0 ? id.substr(7) : id;
    return hex.size() >= 12 && is_hex(hex) ? id : "";
}

std::string short_id(const std::string& id) {
    const auto hex = id.rfind("sha256:", 0) == 0 ? id.substr(7) : id;
    return hex.substr(0, 12);
}

std::string stderr_tail(const std::string& err, std::size_t max_lines, std::size_t max_chars) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < err.size()) {
        auto end = err.find('\n', start);
        if (end == std::string::npos) end = err.size();
        auto line = std::string(util::trim(err.substr(start, end - start)));
        if (!line.empty()) lines.push_back(std::move(line));
        start = end + 1;
    }
    const auto from = lines.size() > max_lines ? lines.size() - max_lines : 0;
    auto tail = util::join({lines.begin() + static_cast<std::ptrdiff_t>(from), lines.end()}, " | ");
    if (tail.size() > max_chars) tail = "..." + tail.substr(tail.size() - max_chars);
    return tail;
}

std::string majority_id(const std::vector<NodeId>& ids) {
    std::map<std::string, std::size_t> votes;
    for (const auto& entry : ids)
        if (!entry.id.empty()) ++votes[entry.id];
    std::string best;
    std::size_t best_votes = 0;
    for (const auto& entry : ids) {  // node order decides ties
        if (entry.id.empty()) continue;
        if (votes[entry.id] > best_votes) {
            best = entry.id;
            best_votes = votes[entry.id];
        }
    }
    return best;
}

std::vector<IdMismatch> mismatches(const ImageRef& image, const std::vector<NodeId>& ids) {
    const auto majority = majority_id(ids);
    std::vector<IdMismatch> found;
    for (const auto& entry : ids)
        if (!entry.id.empty() && entry.id != majority)
            found.push_back({image, entry.node, entry.id, majority});
    return found;
}

}  // namespace pdctl::pull

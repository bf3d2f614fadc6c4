#include "pdctl/report/takeover_view.hpp"

#include <fmt/format.h>

#include "pdctl/util/strings.hpp"

namespace pdctl::report {

std::string render_takeover_text(const ops::TakeoverScan& scan) {
    std::string out;
    const auto count = scan.holders();
    if (count == 0) {
        out += fmt::format("take-over: nothing on the {} nodes of the plan holds its ports, GPUs or images\n",
                           scan.nodes.size());
    } else {
        out += fmt::format(
            "take-over: {} container{}/process{} hold what the plan needs; `start --take-over` stops "
            "them (containers are stopped and kept, not removed), then starts pdctl's units:\n",
            count, count == 1 ? "" : "s", count == 1 ? "" : "es");
        for (const auto& node : scan.nodes)
            for (const auto& holder : node.holders) {
                const std::string what = holder.container
                                             ? fmt::format("container {} ({})", holder.name, holder.image)
                                             : fmt::format("process {} {}", holder.id, holder.name);
                out += fmt::format("  {:<6} {}\n  {:<6}   holds {}\n", node.node, what, "",
                                   util::join(holder.reasons, ", "));
            }
    }
    for (const auto& node : scan.nodes)
        if (!node.error.empty()) out += fmt::format("  {:<6} not probed: {}\n", node.node, node.error);
    out += "dry run: nothing was stopped or started\n";
    return out;
}

nlohmann::json takeover_to_json(const ops::TakeoverScan& scan) {
    nlohmann::json holders = nlohmann::json::array();
    nlohmann::json unprobed = nlohmann::json::array();
    for (const auto& node : scan.nodes) {
        for (const auto& holder : node.holders)
            holders.push_back({{"node", node.node},
                               {"kind", holder.container ? "container" : "process"},
                               {"id", holder.id},
                               {"name", holder.name},
                               {"image", holder.image},
                               {"pid", holder.pid},
                               {"reasons", holder.reasons}});
        if (!node.error.empty()) unprobed.push_back({{"node", node.node}, {"error", node.error}});
    }
    return {{"holders", holders}, {"unprobed", unprobed}, {"dry_run", true}};
}

}  // namespace pdctl::report

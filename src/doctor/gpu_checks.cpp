// GPU001-GPU003: a node that runs an sglang role has nvidia-smi, enough GPUs, and nothing on them.
// An sglang server that finds a GPU already holding memory fails after minutes of loading (out of
// memory at KV-cache allocation), so a leftover process is worth a look before a 15-minute start.

#include <fmt/format.h>

#include "checks.hpp"
#include "text.hpp"

namespace pdctl::doctor::detail {
namespace {

// What nvidia-smi said, in one line for the message.
std::string first_output_line(const std::string& text) {
    auto line = std::string(trim(util::first_line(text)));
    return line.empty() ? "no output" : line;
}

}  // namespace

bool NodeInput::gpus_known() const {
    return facts.nvidia_smi_found && facts.gpu_query_status == 0 &&
           parse_gpu_query(facts.gpu_query_text).error.empty();
}

bool check_gpu_present(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.sglang_role.empty() || !input.facts.gpu_probed) return false;
    if (input.simulated()) return true;  // one info for all simulated nodes (evaluate.cpp)
    const auto& role = input.needs.sglang_role;
    const auto& node = input.needs.node.name;
    if (!input.facts.nvidia_smi_found) {
        sink.add(
            lint::Severity::Error, role,
            fmt::format("{} is not a GPU node: nvidia-smi is not on PATH, and {} needs {} GPU{}", node, role,
                        input.needs.gpus, input.needs.gpus == 1 ? "" : "s"),
            "install the NVIDIA driver on the node (nvidia-smi comes with it), or move the role to a GPU "
            "node in pdctl.yaml");
        return true;
    }
    if (input.facts.gpu_query_status != 0) {
        sink.add(lint::Severity::Error, role,
                 fmt::format("nvidia-smi fails on {} (exit {}): {}", node, input.facts.gpu_query_status,
                             first_output_line(input.facts.gpu_query_text)),
                 "check the driver on the node (`nvidia-smi`, `dmesg | grep -i nvrm`); a driver/library "
                 "version mismatch needs a reboot or a driver reload");
        return true;
    }
    const auto query = parse_gpu_query(input.facts.gpu_query_text);
    if (!query.error.empty())
        sink.add(lint::Severity::Error, role,
                 fmt::format("unexpected nvidia-smi output on {}: {}", node, query.error),
                 "run `nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv,noheader,nounits` "
                 "on the node and report the output with the pdctl version");
    return true;
}

bool check_gpu_count(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.sglang_role.empty() || input.needs.gpus <= 0 || !input.gpus_known()) return false;
    const auto count = static_cast<int>(parse_gpu_query(input.facts.gpu_query_text).gpus.size());
    if (count < input.needs.gpus)
        sink.add(
            lint::Severity::Error, input.needs.sglang_role,
            fmt::format("{} has {} GPU{}, {} needs gpus_per_node {}", input.needs.node.name, count,
                        count == 1 ? "" : "s", input.needs.sglang_role, input.needs.gpus),
            "check `nvidia-smi -L` on the node (a GPU fallen off the bus shows in `dmesg` as Xid 79), or "
            "set gpus_per_node (and --tp-size) to what the nodes have");
    return true;
}

bool check_gpu_idle(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.sglang_role.empty() || !input.gpus_known()) return false;
    const auto gpus = parse_gpu_query(input.facts.gpu_query_text).gpus;
    std::vector<std::string> busy;
    for (const auto& gpu : gpus)
        if (gpu.used_mib > input.options.busy_gpu_mib)
            busy.push_back(fmt::format("GPU {} {} of {} MiB used", gpu.index, gpu.used_mib, gpu.total_mib));
    std::vector<std::string> processes;
    if (input.facts.apps_query_status == 0) {
        for (const auto& app : parse_compute_apps(input.facts.apps_query_text).apps)
            processes.push_back(app.used_mib >= 0
                                    ? fmt::format("pid {} {} ({} MiB)", app.pid, app.name, app.used_mib)
                                    : fmt::format("pid {} {}", app.pid, app.name));
    }
    if (busy.empty() && processes.empty()) return true;
    std::string found = join(busy);
    if (!processes.empty())
        found += (found.empty() ? "" : "; ") + std::string("compute processes: ") + join(processes);
    sink.add(
        lint::Severity::Warn, input.needs.sglang_role,
        fmt::format("GPUs on {} are busy: {}", input.needs.node.name, found),
        "stop what holds the GPUs (`nvidia-smi` on the node shows it; a leftover server of an earlier run: "
        "`pdctl stop`), or sglang runs out of memory when it allocates the KV cache");
    return true;
}

}  // namespace pdctl::doctor::detail

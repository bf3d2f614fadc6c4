// RDMA001-RDMA003: the HCAs the config names exist and have an ACTIVE port, and GPUDirect RDMA has a
// way in (nvidia_peermem, or dma-buf on kernel >= 5.12). A missing or down HCA makes NCCL fall back
// to TCP silently (slow) or Mooncake fail its first KV transfer, minutes after the start.

#include <fmt/format.h>

#include <algorithm>

#include "checks.hpp"
#include "text.hpp"

namespace pdctl::doctor::detail {
namespace {

// The node's devices an HCA entry selects (NCCL: by prefix unless `=`).
std::vector<std::string> matching_devices(const HcaNeed& need, const NodeFacts& facts) {
    std::vector<std::string> found;
    for (const auto& device : facts.ib_devices)
        if (need.prefix ? device.starts_with(need.device) : device == need.device) found.push_back(device);
    return found;
}

std::string where_named(const HcaNeed& need) {
    return fmt::format("{} of {}", need.source, need.role);
}

std::string spelled(const HcaNeed& need) {
    return need.port.empty() ? need.device : need.device + ":" + need.port;
}

bool rdma_checks_apply(const NodeInput& input) {
    return !input.needs.hcas.empty() && !input.simulated();
}

}  // namespace

bool check_hca_present(const NodeInput& input, lint::FindingSink& sink) {
    if (!rdma_checks_apply(input)) return false;
    const auto& facts = input.facts;
    const std::string present = !facts.infiniband_class    ? "the node has no <sysfs>/class/infiniband at all"
                                : facts.ib_devices.empty() ? "the node has no RDMA device"
                                                           : "the node has " + join(facts.ib_devices);
    for (const auto& need : input.needs.hcas) {
        if (!matching_devices(need, facts).empty()) continue;
        sink.add(
            lint::Severity::Error, need.role,
            fmt::format("RDMA device {} ({}) does not exist on {}: {}", spelled(need), where_named(need),
                        input.needs.node.name, present),
            "fix the device name in the profile (`ibdev2netdev` or `ls /sys/class/infiniband` on the node), "
            "or load the driver (mlx5_ib)");
    }
    return true;
}

bool check_hca_active(const NodeInput& input, lint::FindingSink& sink) {
    if (!rdma_checks_apply(input)) return false;
    std::vector<std::string> reported;
    for (const auto& need : input.needs.hcas) {
        for (const auto& device : matching_devices(need, input.facts)) {
            const auto key = device + ":" + need.port;
            if (std::find(reported.begin(), reported.end(), key) != reported.end()) continue;
            std::vector<std::string> states;
            bool active = false;
            for (const auto& port : input.facts.ib_ports) {
                if (port.device != device || (!need.port.empty() && port.port != need.port)) continue;
                active = active || port.active();
                states.push_back(fmt::format("port {} {}", port.port, port.state));
            }
            if (active) continue;
            reported.push_back(key);
            const auto which = need.port.empty() ? device : device + " port " + need.port;
            sink.add(lint::Severity::Error, need.role,
                     fmt::format("RDMA device {} ({}) on {} is not ACTIVE: {}", which, where_named(need),
                                 input.needs.node.name, states.empty() ? "no port state" : join(states)),
                     "check the link (`ibstat`, cable and switch port; a RoCE port follows its netdev: `ip "
                     "link`), "
                     "or remove the device from the profile");
        }
    }
    return true;
}

bool check_gpudirect(const NodeInput& input, lint::FindingSink& sink) {
    if (!input.needs.rdma || input.simulated() || !input.facts.nvidia_smi_found) return false;
    if (input.facts.peermem_loaded) return true;
    const auto version = kernel_version(input.facts.kernel);
    if (version && *version >= std::pair{5, 12}) return true;
    sink.add(
        lint::Severity::Warn, input.needs.sglang_role,
        fmt::format("{} has neither nvidia_peermem loaded nor dma-buf support (kernel {}, needs >= 5.12): "
                    "RDMA cannot read GPU memory directly",
                    input.needs.node.name, input.facts.kernel.empty() ? "unknown" : input.facts.kernel),
        "`modprobe nvidia_peermem` on the node (and add it to /etc/modules-load.d), or upgrade the kernel");
    return true;
}

}  // namespace pdctl::doctor::detail

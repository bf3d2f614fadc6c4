#include "pdctl/plan/gated_launch.hpp"

#include <algorithm>

namespace pdctl::plan {
namespace {

// The value after `flag` in `argv` ("" when it is not there).
std::string flag_value(const std::vector<std::string>& argv, const std::string& flag) {
    const auto at = std::find(argv.begin(), argv.end(), flag);
    return at != argv.end() && at + 1 != argv.end() ? *(at + 1) : "";
}

// The port of "HOST:PORT" (IPv6 hosts in brackets or not), 0 when there is none.
int port_of(const std::string& address) {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos) return 0;
    try {
        return std::stoi(address.substr(colon + 1));
    } catch (const std::exception&) {
        return 0;
    }
}

int old_gate_port(const std::string& label) {
    try {
        return label.empty() ? 0 : std::stoi(label.substr(0, label.find(':')));
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

std::string outgoing_name(const std::string& unit_name) {
    return unit_name + "-outgoing";
}

GatedPorts next_gated_ports(const Stage& stage, int base_gate_port, const std::string& old_label) {
    const bool second = old_gate_port(old_label) == base_gate_port;
    GatedPorts ports;
    ports.gate = second ? base_gate_port + 1 : base_gate_port;
    if (!stage.units.empty()) {
        const int plan_port = port_of(flag_value(stage.units.front().program.argv, "--dist-init-addr"));
        if (plan_port > 0) ports.dist_init = plan_port + (second ? 2 : 1);
    }
    return ports;
}

std::string gated_restart_refusal(const Plan& plan, const Stage& stage) {
    if (stage.kind != config::RoleKind::Sglang)
        return stage.role + " is not an SGLang group: only SGLang ranks wait at a launch gate";
    if (stage.mode != "decode")
        return stage.role +
               " is a prefill group: it binds its bootstrap port, which the router and the decodes are "
               "given, before the gate, so its new ranks cannot start beside the old ones";
    if (plan.executor == config::ExecutorKind::Slurm || stage.slurm)
        return stage.role + " runs as a SLURM job, which starts and stops its ranks together";
    if (stage.runtime.kind != config::RuntimeKind::Docker)
        return stage.role +
               " runs as processes (runtime: process): a process unit keeps the name it started with, "
               "so the old ranks cannot make way for the new ones; containers can (runtime: docker)";
    return "";
}

Stage gated_stage(const Stage& stage, const GatedPorts& ports) {
    Stage gated = stage;
    const auto label = std::to_string(ports.gate) + ":" + std::to_string(ports.dist_init);
    for (auto& unit : gated.units) {
        auto& argv = unit.program.argv;
        // After the program's own flags, as an operator would add it; a profile's own value is replaced.
        if (const auto at = std::find(argv.begin(), argv.end(), "--gated-launch-port");
            at != argv.end() && at + 1 != argv.end())
            argv.erase(at, at + 2);
        argv.insert(argv.end(), {"--gated-launch-port", std::to_string(ports.gate)});
        if (ports.dist_init > 0) {
            const auto at = std::find(argv.begin(), argv.end(), "--dist-init-addr");
            if (at != argv.end() && at + 1 != argv.end()) {
                const auto host = (at + 1)->substr(0, (at + 1)->rfind(':'));
                *(at + 1) = host + ":" + std::to_string(ports.dist_init);
            }
        }
        unit.extra_labels[kGatedLaunchLabel] = label;
        if (unit.runtime) {
            unit.start = unit.runtime->start(unit);
            unit.run = unit.runtime->run_words(unit, unit.start);
        }
    }
    return gated;
}

std::string gate_base_url(const Stage& stage, const GatedPorts& ports) {
    if (stage.units.empty()) return "";
    const auto& rank0 = stage.units.front();
    auto host = flag_value(rank0.program.argv, "--host");
    if (host.empty() || host == "0.0.0.0" || host == "::") host = rank0.compute_address;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    return "http://" + host + ":" + std::to_string(ports.gate);
}

}  // namespace pdctl::plan

#include "pdctl/engine/engine.hpp"

#include <fmt/format.h>

#include "gated_restart.hpp"
#include "pdctl/plan/gated_launch.hpp"
#include "rolling_restart.hpp"
#include "starter.hpp"
#include "stopper.hpp"

namespace pdctl::engine {

Engine::Engine(const plan::Plan& plan, Backend& backend, health::HttpProber& prober, Clock& clock,
               Reporter& reporter, EngineOptions options)
    : plan_(plan),
      backend_(backend),
      prober_(prober),
      clock_(clock),
      reporter_(reporter),
      options_(std::move(options)) {}

RunContext Engine::context(const std::string& verb) {
    return {plan_, backend_, backend_.executor(), prober_, clock_, reporter_, options_, verb};
}

ExitCode Engine::start() {
    auto run = context("start");
    return Starter(run).start();
}

ExitCode Engine::stop() {
    auto run = context("stop");
    return Stopper(run).stop();
}

ExitCode Engine::restart() {
    const auto stopped = stop();
    if (stopped != ExitCode::kOk) return stopped;
    return start();
}

ExitCode Engine::rolling_restart(const plan::RollingPlan& rolling) {
    auto run = context("restart");
    return RollingRestart(run).run(rolling);
}

ExitCode Engine::gated_restart(int base_gate_port) {
    for (const auto& stage : plan_.stages)
        if (const auto refusal = plan::gated_restart_refusal(plan_, stage); !refusal.empty())
            throw Failure(ExitCode::kUsage, "restart --gated: " + refusal + "; nothing was touched");
    // What runs now: the old ranks must all serve (they serve until the switch), no earlier gated
    // restart's outgoing ranks may be left, and their labels say which gate slot they hold.
    const auto observation = observe_all(plan_, backend_.executor());
    plan::Plan gated = plan_;
    std::vector<plan::GatedPorts> ports;
    for (auto& stage : gated.stages) {
        std::string old_label;
        for (const auto& unit : stage.units) {
            const auto* found = observation.find(unit.node, unit.name);
            if (!found || !found->state.running)
                throw Failure(
                    ExitCode::kDegraded,
                    fmt::format("restart --gated: {} rank {} ({} on {}) is not running, and a gated "
                                "restart replaces a running group while it serves; `pdctl restart "
                                "--role {}` starts it; nothing was touched",
                                stage.role, unit.rank, unit.name, unit.node, stage.role));
            if (observation.find(unit.node, plan::outgoing_name(unit.name)))
                throw Failure(ExitCode::kDegraded,
                              fmt::format("restart --gated: {} on {} is left from an earlier gated restart; "
                                          "`pdctl start` stops it (it is not in the config); nothing was "
                                          "touched",
                                          plan::outgoing_name(unit.name), unit.node));
            if (unit.rank == 0) {
                const auto label = found->state.labels.find(plan::kGatedLaunchLabel);
                if (label != found->state.labels.end()) old_label = label->second;
            }
        }
        ports.push_back(plan::next_gated_ports(stage, base_gate_port, old_label));
        stage = plan::gated_stage(stage, ports.back());
    }
    RunContext run{gated, backend_, backend_.executor(), prober_, clock_, reporter_, options_, "restart"};
    return GatedRestart(run, plan_, std::move(ports)).run();
}

}  // namespace pdctl::engine

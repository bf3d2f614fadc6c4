#pragma once
// executor: ssh and executor: local. Every unit is started and stopped by its own command (the plan's
// Unit::start and Unit::stop), on its node over SSH or on this machine, the units of a stage in
// parallel. The GPU query and the preflight are the doctor's (given by make_backend; tests give their
// own, or none).

#include "pdctl/backend/cluster_backend.hpp"

namespace pdctl::backend {

// What a node backend checks besides its units; an empty function checks nothing.
struct NodeChecks {
    engine::Preflight preflight;
    engine::GpuUseQuery gpu_use;
};

class NodeBackend : public ClusterBackend {
  public:
    // `name`: "ssh" or "local", as the config says.
    explicit NodeBackend(exec::Executor& executor, NodeChecks checks = {}, std::string name = "local")
        : executor_(executor), checks_(std::move(checks)), name_(std::move(name)) {}

    void set_checks(NodeChecks checks) { checks_ = std::move(checks); }

    std::string_view name() const override { return name_; }
    std::optional<Refusal> refusal(const std::string&) const override { return std::nullopt; }
    exec::Executor& executor() override { return executor_; }
    engine::StageResult launch(const plan::Plan& plan, const plan::Stage& stage, engine::Reporter& reporter,
                               const engine::StartHook& hook) override;
    std::vector<engine::StopFailure> stop(const plan::Plan& plan, const plan::Stage& stage,
                                          const std::string& verb, const std::set<std::string>& skip,
                                          engine::Reporter& reporter) override;
    std::string scheduler_state(const plan::Plan&, const plan::Unit&) override { return {}; }
    bool checks_gpus() const override { return static_cast<bool>(checks_.gpu_use); }
    engine::GpuUse gpu_use(const config::Node& node) override { return checks_.gpu_use(node); }
    std::optional<engine::PreflightAnswer> preflight(const std::vector<std::string>& roles) override;

  private:
    exec::Executor& executor_;
    NodeChecks checks_;
    std::string name_;
};

}  // namespace pdctl::backend

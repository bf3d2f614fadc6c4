#pragma once
// A use case's whole context on fakes: an ops::Deployment of the sample cluster (or any) whose executor,
// backend and HTTP prober are one FakeCluster and whose clock is a FakeClock, so heal, drill, status and
// bench's baseline run as the command line runs them, without a process, a socket or a sleep. The
// journal's local copy goes to a temporary XDG_STATE_HOME of its own.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "pdctl/engine/clock.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/state/intent.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::testing {

class FakeDeployment {
  public:
    explicit FakeDeployment(config::Cluster cluster = sample_cluster()) {
        deployment.cluster = std::move(cluster);
        deployment.plan = plan::build_plan(deployment.cluster);  // the plan `nodes` answers for
        deployment.backend = &nodes.backend;
        deployment.executor = &nodes;
        deployment.on_nodes = &nodes;
        deployment.clock = &clock;
        deployment.prober = &nodes;
        local_state_ = std::filesystem::temp_directory_path() /
                       ("pdctl-fake-deployment-" + std::to_string(::getpid()) + "-" +
                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
        std::filesystem::create_directories(local_state_);
        ::setenv("XDG_STATE_HOME", local_state_.c_str(), 1);
    }
    ~FakeDeployment() {
        ::unsetenv("XDG_STATE_HOME");
        std::error_code ignored;
        std::filesystem::remove_all(local_state_, ignored);
    }
    FakeDeployment(const FakeDeployment&) = delete;
    FakeDeployment& operator=(const FakeDeployment&) = delete;

    // Every unit running from this config and ready, as after a start long ago.
    void run_everything() {
        for (const auto& stage : deployment.plan.stages)
            for (const auto& unit : stage.units) nodes.preload_running(unit, unit.fingerprint);
    }
    // As after `pdctl stop --group decode` by alice: the decode ranks gone and the intent recorded.
    void stop_decode_on_purpose() {
        for (const auto& stage : deployment.plan.stages)
            if (stage.role == "decode")
                for (const auto& unit : stage.units) nodes.forget(unit.name);
        state::intent::Intent intent;
        intent.stopped["decode"] = {{"alice@h1", "2026-12-06T10:00:00Z", 1, "run-1"},
                                    "pdctl stop --group decode",
                                    "pdctl start --group decode"};
        nodes.intent = state::intent::to_text(intent);
    }
    const plan::Unit& unit_named(const std::string& name) const {
        for (const auto& stage : deployment.plan.stages)
            for (const auto& unit : stage.units)
                if (unit.name == name) return unit;
        throw std::runtime_error("no unit " + name);
    }

    // Declared before `nodes`, which keeps a reference to its plan.
    ops::Deployment deployment;
    engine::FakeClock clock;
    FakeCluster nodes{deployment.plan, clock};

  private:
    std::filesystem::path local_state_;
};

}  // namespace pdctl::testing

#pragma once
// `pdctl bench --sweep A.yaml B.yaml ...`: the "which P:D ratio" question. For each config in turn, a
// converging start (only the groups that differ from what runs move: docs/operations.md) and the same
// bench, each journaled as its own start and bench run; then the standings (ops/sweep_ranking.hpp).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/bench_verb.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/ops/sweep_ranking.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct SweepConfig {
    std::string path;  // as given
    config::Cluster cluster;
};

// Every config loaded and validated before anything starts (a mistake in the last one is found before
// the first start), and all of them one deployment: the same cluster name and state directory, since a
// sweep moves one deployment from config to config. Throws config::ConfigError or Failure (usage).
std::vector<SweepConfig> load_sweep_configs(const std::vector<std::string>& paths);

struct SweepEntry {
    std::string config;
    std::string pd;  // "1P:3D", from the plan
    ExitCode start_code = ExitCode::kOk;
    std::optional<BenchOutcome> bench;  // none when the start failed or the sweep was interrupted
};

struct SweepHooks {
    // Shows a config's start (its redactor knows that config's secrets); none: the start is only journaled.
    std::function<std::unique_ptr<engine::Reporter>(const Deployment& deployment)> screen;
    // Before config `index`'s start (a heading for the person watching).
    std::function<void(std::size_t index, const SweepConfig& config, const Deployment& deployment)> starting;
    std::function<void(const BenchProgress&)> progress;  // the bench's live line
};

// Starts and benches each config in turn. A config whose start
// fails is recorded and the sweep goes on (the next start converges from whatever that one left); an
// interrupt ends it after the config it was in.
std::vector<SweepEntry> run_sweep(const std::vector<SweepConfig>& configs, const OpenOptions& open,
                                  const EngineRequest& start, const BenchSpec& spec, const SweepHooks& hooks);

// The entries as the ranking reads them.
std::vector<SweepCandidate> sweep_candidates(const std::vector<SweepEntry>& entries);

// 0 when every config started and benched without a failed request; else the first failure's code.
ExitCode sweep_verdict(const std::vector<SweepEntry>& entries);

}  // namespace pdctl::ops

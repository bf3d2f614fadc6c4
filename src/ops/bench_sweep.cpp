#include "pdctl/ops/bench_sweep.hpp"

#include <fmt/format.h>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/bench_record.hpp"

namespace pdctl::ops {
namespace {

std::string pd_of(const plan::Plan& plan) {
    int prefill = 0;
    int decode = 0;
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        (stage.mode == "prefill" ? prefill : decode) += 1;
    }
    return fmt::format("{}P:{}D", prefill, decode);
}

}  // namespace

std::vector<SweepConfig> load_sweep_configs(const std::vector<std::string>& paths) {
    if (paths.size() < 2)
        throw Failure(ExitCode::kUsage, "--sweep compares configs: give at least two",
                      "pdctl bench --sweep 1p3d.yaml 2p2d.yaml 3p1d.yaml");
    std::vector<SweepConfig> configs;
    for (const auto& path : paths) {
        for (const auto& earlier : configs)
            if (earlier.path == path)
                throw Failure(ExitCode::kUsage, fmt::format("--sweep names {} twice", path));
        configs.push_back({path, load_cluster(path)});
    }
    const auto& first = configs.front();
    for (const auto& other : configs) {
        if (other.cluster.name == first.cluster.name && other.cluster.state_dir == first.cluster.state_dir)
            continue;
        throw Failure(ExitCode::kUsage,
                      fmt::format("{} (cluster {}, state_dir {}) and {} (cluster {}, state_dir {}) are two "
                                  "deployments: a sweep moves one deployment from config to config",
                                  first.path, first.cluster.name, first.cluster.state_dir, other.path,
                                  other.cluster.name, other.cluster.state_dir),
                      "give every config the same `cluster:` and `state_dir:`");
    }
    return configs;
}

std::vector<SweepEntry> run_sweep(const std::vector<SweepConfig>& configs, const OpenOptions& open,
                                  const EngineRequest& start, const BenchSpec& spec,
                                  const SweepHooks& hooks) {
    // Ctrl-C ends the config under way; the sweep stops there and ranks what it measured.
    engine::install_interrupt_handlers();
    std::vector<SweepEntry> entries;
    for (std::size_t i = 0; i < configs.size() && !engine::interrupted(); ++i) {
        const auto deployment = open_deployment(configs[i].cluster, open);
        SweepEntry entry;
        entry.config = configs[i].path;
        entry.pd = pd_of(deployment.plan);
        if (hooks.starting) hooks.starting(i, configs[i], deployment);
        engine::SilentReporter unseen;
        const auto shown = hooks.screen ? hooks.screen(deployment) : nullptr;
        entry.start_code =
            run_engine(deployment, start, shown ? *shown : static_cast<engine::Reporter&>(unseen));
        if (entry.start_code == ExitCode::kOk && !engine::interrupted())
            entry.bench = run_bench_verb(deployment, spec, {}, hooks.progress);
        entries.push_back(std::move(entry));
    }
    return entries;
}

std::vector<SweepCandidate> sweep_candidates(const std::vector<SweepEntry>& entries) {
    std::vector<SweepCandidate> candidates;
    for (const auto& entry : entries) {
        SweepCandidate candidate{entry.config, entry.pd, nullptr, ""};
        if (entry.bench)
            candidate.record = bench_record(entry.bench->report);
        else
            candidate.failure = fmt::format("start failed (exit {})", static_cast<int>(entry.start_code));
        candidates.push_back(std::move(candidate));
    }
    return candidates;
}

ExitCode sweep_verdict(const std::vector<SweepEntry>& entries) {
    for (const auto& entry : entries) {
        if (entry.start_code != ExitCode::kOk) return entry.start_code;
        if (entry.bench && entry.bench->code != ExitCode::kOk) return entry.bench->code;
    }
    return engine::interrupted() ? ExitCode::kInterrupted : ExitCode::kOk;
}

}  // namespace pdctl::ops

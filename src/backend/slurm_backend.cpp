#include "pdctl/backend/slurm_backend.hpp"

#include <fmt/format.h>

#include "pdctl/engine/observer.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::backend {
namespace {

const runtime::SlurmJob& job_of(const plan::Stage& stage) {
    if (!stage.slurm)
        throw Failure(ExitCode::kInternal, "executor: slurm, but stage " + stage.role + " has no job");
    return *stage.slurm;
}

}  // namespace

engine::StageResult SlurmBackend::launch(const plan::Plan& plan, const plan::Stage& stage,
                                         engine::Reporter& reporter, const engine::StartHook& hook) {
    const auto& job = job_of(stage);
    const auto& rank0 = stage.units.front();
    const auto& here = engine::plan_node(plan, rank0.node);
    auto failed = [&](std::string reason) {
        engine::StageResult result;
        result.code = ExitCode::kStageFailed;
        result.failure = {stage.role, rank0.node, rank0.address, rank0.rank, std::move(reason), {}, "", {}};
        return result;
    };
    auto words = [](const exec::CommandResult& answer) {
        if (answer.timed_out) return std::string("timed out");
        return fmt::format("exit {}: {}", answer.exit_code,
                           util::first_line(answer.err.empty() ? answer.out : answer.err));
    };
    for (const auto& command : job.prepare) {
        const auto answer = executor_.run(here, command);
        if (!answer.ok())
            return failed(fmt::format("could not write the job's files in {} ({})", job.dir, words(answer)));
    }
    if (hook) hook(engine::StartMoment::kBeforeCommand, rank0);
    const auto answer = executor_.run(here, job.submit);
    if (hook) hook(engine::StartMoment::kAfterCommand, rank0);
    if (!answer.ok())
        return failed(job.step ? fmt::format("could not launch step {} ({})", job.name, words(answer))
                               : fmt::format("sbatch refused job {} ({})", job.name, words(answer)));
    // --parsable prints "ID" or "ID;CLUSTER"; a step's launch prints its allocation's ID.
    auto id = util::first_line(answer.out);
    id = id.substr(0, id.find(';'));
    const auto said = job.step ? fmt::format("launched as a step of SLURM allocation {} ({})", id, job.name)
                               : fmt::format("submitted as SLURM job {} ({})", id, job.name);
    for (const auto& unit : stage.units) reporter.unit_done("start", unit, said);
    return {};
}

// Each unit's stop command stops the whole job: rank 0's, once.
std::vector<engine::StopFailure> SlurmBackend::stop(const plan::Plan& plan, const plan::Stage& stage,
                                                    const std::string& verb,
                                                    const std::set<std::string>& /*skip: no node is reached*/,
                                                    engine::Reporter& reporter) {
    const auto& rank0 = stage.units.front();
    const auto answer = executor_.run(engine::plan_node(plan, rank0.node), rank0.stop);
    auto failure = engine::stop_failure(
        answer, rank0.stop, fmt::format("{} (SLURM job {})", stage.role, job_of(stage).name), rank0.node);
    for (const auto& unit : stage.units)
        reporter.unit_done(verb, unit,
                           failure ? "stop failed: " + failure->what : util::first_line(answer.out));
    if (!failure) return {};
    return {std::move(*failure)};
}

std::string SlurmBackend::scheduler_state(const plan::Plan& plan, const plan::Unit& unit) {
    const auto observation = engine::observe(plan, executor_, {unit.node});
    const auto* found = observation.find(unit.node, unit.name);
    return found ? found->state.scheduler : std::string();
}

std::optional<engine::PreflightAnswer> SlurmBackend::preflight(const std::vector<std::string>& roles) {
    if (!preflight_) return std::nullopt;
    return preflight_(roles);
}

std::optional<Refusal> SlurmBackend::refusal(const std::string& verb) const {
    // exec and stack reach a node through srun inside a job that holds it (backend/srun_executor.hpp).
    if (verb == "exec" || verb == "stack") return std::nullopt;
    return Refusal{config_path_ + ": executor: slurm: `pdctl " + verb +
                       "` works on the nodes' files and processes outside any job, and under SLURM pdctl "
                       "reaches a node only inside one of the deployment's jobs",
                   "SLURM runs the ranks (srun); start, stop, status, logs, smoke, exec and stack work from "
                   "this machine; docs/slurm.md"};
}

}  // namespace pdctl::backend

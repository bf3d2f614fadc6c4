// executor: slurm. A group is one SLURM job (runtime/slurm_job.hpp): start writes its files and submits
// it once for all its ranks, and stop ends it once. Both run on the submitting machine, which the
// executor is (ops/deployment.cpp); the node passed along is only the one messages name. Everything after
// the submission — liveness, gates, progress, a failed rank's tail — is the engine's common path over
// the SLURM runtime's view (runtime/slurm_runtime.hpp).

#include <fmt/format.h>

#include "pdctl/engine/engine.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::engine {

Engine::StageResult Engine::submit_slurm_job(const plan::Stage& stage) {
    const auto& job = *stage.slurm;
    const auto& rank0 = stage.units.front();
    const auto& here = node(rank0.node);
    auto failed = [&](std::string reason) {
        StageResult result;
        result.code = ExitCode::kStageFailed;
        result.failure = {stage.role, rank0.node, rank0.address, rank0.rank, std::move(reason), {}, ""};
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
    if (options_.start_hook) options_.start_hook(StartMoment::kBeforeCommand, rank0);
    const auto answer = executor_.run(here, job.submit);
    if (options_.start_hook) options_.start_hook(StartMoment::kAfterCommand, rank0);
    if (!answer.ok())
        return failed(job.step ? fmt::format("could not launch step {} ({})", job.name, words(answer))
                               : fmt::format("sbatch refused job {} ({})", job.name, words(answer)));
    // --parsable prints "ID" or "ID;CLUSTER"; a step's launch prints its allocation's ID.
    auto id = util::first_line(answer.out);
    id = id.substr(0, id.find(';'));
    const auto said = job.step ? fmt::format("launched as a step of SLURM allocation {} ({})", id, job.name)
                               : fmt::format("submitted as SLURM job {} ({})", id, job.name);
    for (const auto& unit : stage.units) reporter_.unit_done("start", unit, said);
    return {};
}

std::vector<Engine::StopFailure> Engine::stop_slurm_job(const plan::Stage& stage, const std::string& verb) {
    const auto& rank0 = stage.units.front();
    const auto answer = executor_.run(node(rank0.node), rank0.stop);
    auto failure = stop_failure(answer, rank0.stop,
                                fmt::format("{} (SLURM job {})", stage.role, stage.slurm->name), rank0.node);
    for (const auto& unit : stage.units)
        reporter_.unit_done(verb, unit,
                            failure ? "stop failed: " + failure->what : util::first_line(answer.out));
    if (!failure) return {};
    return {std::move(*failure)};
}

std::string Engine::slurm_state(const plan::Stage& stage, const plan::Unit& unit) {
    if (!stage.slurm) return {};
    const auto observation = observe(plan_, executor_, {unit.node});
    const auto* found = observation.find(unit.node, unit.name);
    return found ? found->state.scheduler : std::string();
}

}  // namespace pdctl::engine

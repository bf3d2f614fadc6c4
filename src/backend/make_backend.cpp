#include "pdctl/backend/make_backend.hpp"

#include <spdlog/spdlog.h>

#include <memory>
#include <stdexcept>

#include "pdctl/backend/node_backend.hpp"
#include "pdctl/backend/slurm_backend.hpp"
#include "pdctl/backend/srun_executor.hpp"
#include "pdctl/config/names.hpp"
#include "pdctl/doctor/gpu_use.hpp"
#include "pdctl/doctor/preflight.hpp"
#include "pdctl/doctor/slurm_preflight.hpp"
#include "pdctl/exec/local_executor.hpp"
#include "pdctl/lint/folded_findings.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::backend {
namespace {

// What the preflight reads, copied: the deployment that asked for the backend may move.
struct Facts {
    config::Cluster cluster;
    plan::Plan plan;
    util::Redactor redactor;
};

// The preflight's findings as the engine takes them: errors stop the start, the rest are notes. The
// same finding on many nodes and devices is one line (8 hosts without RDMA devices were 72 lines);
// -v logs each one.
engine::PreflightAnswer answer_of(const doctor::PreflightResult& result, const util::Redactor& redactor) {
    engine::PreflightAnswer answer;
    answer.nodes = result.nodes;
    for (const auto& finding : result.findings)
        spdlog::info("preflight: {} {}", finding.id, redactor.redact(finding.message));
    for (const auto& folded : lint::fold_findings(result.findings)) {
        const auto text = redactor.redact(folded.id + " " + folded.message);
        (folded.severity == lint::Severity::Error ? answer.problems : answer.notes).push_back(text);
    }
    return answer;
}

// nvidia-smi's compute processes on a node, for the engine's GPU release wait.
engine::GpuUseQuery gpu_use_query(exec::Executor& executor) {
    return [&executor](const config::Node& node) {
        const auto apps = doctor::read_gpu_apps(executor.run(node, doctor::gpu_apps_command()));
        engine::GpuUse use;
        use.checked = apps.nvidia_smi;
        use.error = apps.error;
        for (const auto& app : apps.apps) use.holders.push_back(doctor::describe(app));
        return use;
    };
}

}  // namespace

ChosenBackend make_backend(const config::Cluster& cluster, const plan::Plan& plan,
                           const util::Redactor& redactor, const BackendOptions& options) {
    ChosenBackend chosen;
    if (cluster.executor == config::ExecutorKind::Ssh) {
        auto ssh = exec::SshOptions::from_environment();
        ssh.accept_new_host_keys = options.accept_new_host_keys;
        exec::OpenSshOptions openssh;
        try {
            openssh = exec::openssh_options_like(ssh);
        } catch (const std::invalid_argument& error) {  // PDCTL_SSH_PERSIST
            throw Failure(ExitCode::kUsage, error.what());
        }
        auto transports = std::make_unique<exec::SshTransports>(std::move(ssh), std::move(openssh));
        chosen.ssh_transports = transports.get();
        chosen.executor = std::move(transports);
    } else {
        // Local and SLURM run their commands on this machine. pdsim sits next to pdctl in the build
        // tree, in libexec/pdctl in the install tree.
        chosen.executor = std::make_unique<exec::LocalExecutor>(exec::local_tools_path());
    }
    auto& executor = *chosen.executor;
    const auto facts = std::make_shared<const Facts>(Facts{cluster, plan, redactor});
    if (cluster.executor == config::ExecutorKind::Slurm) {
        chosen.backend = std::make_unique<SlurmBackend>(
            executor,
            [facts, &executor](const std::vector<std::string>& roles) {
                return answer_of(doctor::run_slurm_preflight(facts->plan, executor, roles), facts->redactor);
            },
            cluster.config_path);
        chosen.into_nodes = std::make_unique<SrunExecutor>(
            executor, config::deployment_name(cluster.name, ""), cluster.slurm.allocation);
        return chosen;
    }
    NodeChecks checks;
    checks.preflight = [facts, &executor](const std::vector<std::string>& roles) {
        return answer_of(doctor::run_preflight(facts->cluster, facts->plan, executor, roles),
                         facts->redactor);
    };
    checks.gpu_use = gpu_use_query(executor);
    chosen.backend = std::make_unique<NodeBackend>(
        executor, std::move(checks), cluster.executor == config::ExecutorKind::Ssh ? "ssh" : "local");
    return chosen;
}

}  // namespace pdctl::backend

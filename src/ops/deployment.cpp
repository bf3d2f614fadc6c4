#include "pdctl/ops/deployment.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <filesystem>

#include "pdctl/config/embedded_profile.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/config/secret_flags.hpp"
#include "pdctl/doctor/rule_ids.hpp"
#include "pdctl/ops/slurm_allocation_reader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::ops {

namespace {

// What the config layer cannot check by itself: the rule IDs `doctor: ignore:` names.
config::Cluster checked(config::Cluster cluster) {
    if (auto unknown = doctor::check_acknowledged_rules(cluster); !unknown.empty())
        throw config::ConfigError(std::move(unknown));
    return cluster;
}

}  // namespace

config::Cluster load_cluster(const std::string& config_path, EmbeddedFallback fallback) {
    std::string path = config_path;
    if (path.empty()) {
        if (const char* env = std::getenv("PDCTL_CONFIG"); env && *env) path = env;
    }
    if (path.empty() && std::filesystem::exists("pdctl.yaml")) path = "pdctl.yaml";
    if (!path.empty()) {
        config::DiskFileSource disk;
        if (!disk.read(path)) throw Failure(ExitCode::kUsage, "cannot read config file " + path);
        return checked(config::load_cluster(path, disk, read_slurm_allocation));
    }
    if (fallback == EmbeddedFallback::kRefused)
        throw Failure(
            ExitCode::kUsage,
            "no cluster file (-c, $PDCTL_CONFIG or ./pdctl.yaml): this verb runs unattended and never "
            "falls back to the embedded simulated cluster",
            "name the cluster file with -c FILE; for pdctl-heal.service, set PDCTL_CONFIG in "
            "/etc/default/pdctl-heal");
    // No config anywhere: the simulated local cluster that ships inside the binary. Said at every
    // verbosity: `pdctl start` run in the wrong directory must not quietly start a simulator.
    spdlog::warn(
        "no cluster file (-c, $PDCTL_CONFIG or ./pdctl.yaml): using the embedded simulated cluster "
        "(profiles/local) on this machine");
    std::map<std::string, std::string> files;
    const std::string dir = std::string(config::kEmbeddedConfigPath)
                                .substr(0, std::string(config::kEmbeddedConfigPath).rfind('/'));
    for (const auto& [name, content] : config::embedded_local_profile()) files[dir + "/" + name] = content;
    config::MemoryFileSource memory(std::move(files));
    return checked(config::load_cluster(config::kEmbeddedConfigPath, memory));
}

util::Redactor secrets_of(const config::Cluster& cluster, const plan::Plan& plan) {
    util::Redactor redactor;
    for (const auto& role : cluster.roles)
        for (const auto& var : role.env)
            if (var.secret) redactor.add_secret(var.value);
    for (const auto& stage : plan.stages)
        for (const auto& unit : stage.units)
            for (const auto& value : config::secret_flag_values(unit.program.argv))
                redactor.add_secret(value);
    return redactor;
}

Deployment open_deployment(config::Cluster cluster, const OpenOptions& options) {
    if (!options.clock || !options.prober)
        throw Failure(ExitCode::kInternal, "a deployment opened without a clock or an HTTP prober");
    Deployment deployment;
    deployment.clock = options.clock;
    deployment.prober = options.prober;
    deployment.cluster = std::move(cluster);
    deployment.plan = plan::build_plan(deployment.cluster);
    deployment.redactor = secrets_of(deployment.cluster, deployment.plan);
    // Never used by the local executor, but an error or debug line may still quote the environment.
    if (const char* passphrase = std::getenv("PDCTL_SSH_PASSPHRASE"); passphrase && *passphrase)
        deployment.redactor.add_secret(passphrase);
    deployment.chosen = backend::make_backend(deployment.cluster, deployment.plan, deployment.redactor,
                                              {options.accept_new_host_keys});
    deployment.backend = deployment.chosen.backend.get();
    deployment.executor = deployment.chosen.executor.get();
    deployment.on_nodes =
        deployment.chosen.into_nodes ? deployment.chosen.into_nodes.get() : deployment.executor;
    deployment.ssh_transports = deployment.chosen.ssh_transports;
    if (options.purpose == Purpose::kOnNodes)
        if (const auto refused = deployment.backend->refusal(options.verb))
            throw Failure(ExitCode::kUsage, refused->message, refused->hint);
    return deployment;
}

std::vector<exec::NodeTransport> transport_choices(const Deployment& deployment) {
    if (!deployment.ssh_transports) return {};
    const auto& nodes = deployment.cluster.nodes;
    std::vector<exec::NodeTransport> choices(nodes.size());
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        choices[i] = {nodes[i].name, deployment.ssh_transports->choice_for(nodes[i])};
    });
    return choices;
}

}  // namespace pdctl::ops

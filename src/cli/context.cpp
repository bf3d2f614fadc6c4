#include "context.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "log_file.hpp"
#include "pdctl/config/embedded_profile.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/config/secret_flags.hpp"
#include "pdctl/exec/local_executor.hpp"
#include "pdctl/exec/ssh_transports.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/report/live_view.hpp"
#include "pdctl/report/tee_reporter.hpp"
#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/parallel.hpp"
#include "slurm_allocation_reader.hpp"

namespace pdctl::cli {

config::Cluster load_cluster(const GlobalOptions& options) {
    std::string path = options.config_path;
    if (path.empty()) {
        if (const char* env = std::getenv("PDCTL_CONFIG"); env && *env) path = env;
    }
    if (path.empty() && std::filesystem::exists("pdctl.yaml")) path = "pdctl.yaml";
    if (!path.empty()) {
        config::DiskFileSource disk;
        if (!disk.read(path)) throw Failure(ExitCode::kUsage, "cannot read config file " + path);
        return config::load_cluster(path, disk, read_slurm_allocation);
    }
    // No config anywhere: the simulated local cluster that ships inside the binary.
    spdlog::info("no -c, PDCTL_CONFIG or ./pdctl.yaml: using the embedded local profile (profiles/local)");
    std::map<std::string, std::string> files;
    const std::string dir = std::string(config::kEmbeddedConfigPath)
                                .substr(0, std::string(config::kEmbeddedConfigPath).rfind('/'));
    for (const auto& [name, content] : config::embedded_local_profile()) files[dir + "/" + name] = content;
    config::MemoryFileSource memory(std::move(files));
    return config::load_cluster(config::kEmbeddedConfigPath, memory);
}

Context load_context(const GlobalOptions& options, Purpose purpose, const std::string& verb) {
    Context context;
    context.cluster = load_cluster(options);
    if (context.cluster.executor == config::ExecutorKind::Slurm && purpose == Purpose::kOnNodes)
        throw Failure(ExitCode::kUsage,
                      context.cluster.config_path + ": executor: slurm: `pdctl " + verb +
                          "` runs commands on the nodes, and under SLURM pdctl does not reach them",
                      "SLURM runs the ranks (srun); start, stop, status, logs and smoke work from this "
                      "machine; docs/slurm.md");
    for (const auto& role : context.cluster.roles)
        for (const auto& var : role.env)
            if (var.secret) context.redactor.add_secret(var.value);
    context.plan = plan::build_plan(context.cluster);
    for (const auto& stage : context.plan.stages)
        for (const auto& unit : stage.units)
            for (const auto& value : config::secret_flag_values(unit.program.argv))
                context.redactor.add_secret(value);
    // Never used by the local executor, but an error or debug line may still quote the environment.
    if (const char* passphrase = std::getenv("PDCTL_SSH_PASSPHRASE"); passphrase && *passphrase)
        context.redactor.add_secret(passphrase);
    log_file::redact_with(context.redactor);
    if (context.cluster.executor != config::ExecutorKind::Ssh) {
        // pdsim sits next to pdctl in the build tree, in libexec/pdctl in the install tree.
        context.executor = std::make_unique<exec::LocalExecutor>(exec::local_tools_path());
    } else {
        auto ssh = exec::SshOptions::from_environment();
        ssh.accept_new_host_keys = options.accept_new_host_keys;
        auto openssh = exec::openssh_options_like(ssh);
        auto transports = std::make_unique<exec::SshTransports>(std::move(ssh), std::move(openssh));
        context.ssh_transports = transports.get();
        context.executor = std::move(transports);
    }
    return context;
}

std::vector<report::NodeTransport> transport_choices(const Context& context) {
    if (!context.ssh_transports) return {};
    const auto& nodes = context.cluster.nodes;
    std::vector<report::NodeTransport> choices(nodes.size());
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        choices[i] = {nodes[i].name, context.ssh_transports->choice_for(nodes[i])};
    });
    return choices;
}

namespace {

std::unique_ptr<engine::Reporter> make_screen_reporter(const GlobalOptions& options,
                                                       const util::Redactor& redactor) {
    if (options.json) return std::make_unique<report::JsonLinesReporter>(stdout, redactor);
    const bool ci = std::getenv("CI") != nullptr;
    // A terminal that can move the cursor gets the live view; CI logs and pipes get one line per change.
    const char* term = std::getenv("TERM");
    const bool capable = term && *term && std::string_view(term) != "dumb";
    if (!ci && capable && ::isatty(STDOUT_FILENO)) {
        const char* no_color = std::getenv("NO_COLOR");  // no-color.org: set and non-empty
        return std::make_unique<report::LiveViewReporter>(stdout, redactor,
                                                          report::LiveStyle{!(no_color && *no_color)});
    }
    return std::make_unique<report::TextReporter>(stdout, redactor, ci || !::isatty(STDOUT_FILENO));
}

}  // namespace

std::unique_ptr<engine::Reporter> make_reporter(const GlobalOptions& options,
                                                const util::Redactor& redactor) {
    auto screen = make_screen_reporter(options, redactor);
    if (!log_file::stream()) return screen;
    // The log file gets the plain, UTC-stamped lines a CI log would show, whatever the screen shows.
    return std::make_unique<report::TeeReporter>(
        std::move(screen), std::make_unique<report::TextReporter>(log_file::stream(), redactor, true));
}

}  // namespace pdctl::cli

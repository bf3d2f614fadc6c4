#include "context.hpp"

#include "log_file.hpp"
#include "pdctl/report/progress_reporter.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

config::Cluster load_cluster(const GlobalOptions& options, ops::EmbeddedFallback fallback) {
    if (options.config_given && options.config_path.empty())
        throw Failure(ExitCode::kUsage, "-c names no cluster file (it is empty)",
                      "for pdctl-heal.service, set PDCTL_CONFIG in /etc/default/pdctl-heal");
    return ops::load_cluster(options.config_path, fallback);
}

ops::OpenOptions open_options(const GlobalOptions& options, Purpose purpose, const std::string& verb) {
    return {options.accept_new_host_keys, purpose, verb, options.clock, options.prober};
}

Context load_context(const GlobalOptions& options, Purpose purpose, const std::string& verb,
                     ops::EmbeddedFallback fallback) {
    auto context =
        ops::open_deployment(load_cluster(options, fallback), open_options(options, purpose, verb));
    log_file::redact_with(context.redactor);
    return context;
}

std::unique_ptr<engine::Reporter> make_reporter(const GlobalOptions& options,
                                                const util::Redactor& redactor) {
    return report::make_progress_reporter(stdout, options.json, log_file::stream(), redactor);
}

}  // namespace pdctl::cli

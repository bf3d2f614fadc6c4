#include "context.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "log_file.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/tee_reporter.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/report/live_view.hpp"
#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

config::Cluster load_cluster(const GlobalOptions& options, ops::EmbeddedFallback fallback) {
    if (options.config_given && options.config_path.empty())
        throw Failure(ExitCode::kUsage, "-c names no cluster file (it is empty)",
                      "for pdctl-heal.service, set PDCTL_CONFIG in /etc/default/pdctl-heal");
    return ops::load_cluster(options.config_path, fallback);
}

ops::OpenOptions open_options(const GlobalOptions& options, Purpose purpose, const std::string& verb) {
    // The edge of the house: real time and real HTTP, one of each for the whole process (both keep no
    // state, so the threads of a fan-out share them), handed to every use case through its deployment.
    static engine::RealClock clock;
    static health::RealHttpProber prober;
    return {options.accept_new_host_keys, purpose, verb, &clock, &prober};
}

Context load_context(const GlobalOptions& options, Purpose purpose, const std::string& verb,
                     ops::EmbeddedFallback fallback) {
    auto context =
        ops::open_deployment(load_cluster(options, fallback), open_options(options, purpose, verb));
    log_file::redact_with(context.redactor);
    return context;
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
    return std::make_unique<engine::TeeReporter>(
        std::move(screen), std::make_unique<report::TextReporter>(log_file::stream(), redactor, true));
}

}  // namespace pdctl::cli

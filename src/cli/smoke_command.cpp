// pdctl smoke: the runbook's last step (ops/smoke.hpp), with --junit.
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>

#include "duration_flag.hpp"
#include "engine_verb.hpp"
#include "pdctl/ops/smoke.hpp"
#include "pdctl/report/smoke_view.hpp"
#include "pdctl/util/durations.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct SmokeOptions {
    std::string junit;
    std::string timeout = "120s";
    ops::SmokeRequest request;
};

ExitCode smoke_command(const GlobalOptions& global, SmokeOptions options) {
    options.request.timeout = parse_duration_flag("--timeout", options.timeout);
    check_junit_path(options.junit);
    const auto began = util::SteadyClock::now();
    const auto timestamp = report::junit_timestamp_now();
    auto context = load_context(global);
    const auto checks = ops::run_smoke(context, options.request);

    print_result(
        global, context.redactor, [&] { return report::smoke_to_json(checks); },
        [&] {
            std::string text;
            for (const auto& check : checks) text += report::render_smoke_check_line(check) + "\n";
            return text;
        });
    write_junit_file(options.junit, {report::smoke_to_junit(checks, timestamp, util::seconds_since(began))},
                     context.redactor);
    return ops::all_passed(checks) ? ExitCode::kOk : ExitCode::kSmokeFailed;
}

}  // namespace

void add_smoke_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<SmokeOptions>();
    auto* command = app.add_subcommand(
        "smoke", "/health_generate on every SGLang group's rank 0, then POST /generate through the router");
    command->add_option("--prompt", options->request.prompt, "prompt text")->capture_default_str();
    add_junit_flag(*command, options->junit,
                   "one test case per check: each group's /health_generate, then the request through the "
                   "router, with its latency and error");
    command->add_option("--max-tokens", options->request.max_new_tokens, "max_new_tokens")
        ->capture_default_str();
    command->add_option("--timeout", options->timeout, "how long each request may take to answer: 90s, 5m")
        ->type_name(kDurationMetavar)
        ->capture_default_str();
    add_scope_flags(*command, options->request.scope);
    verbs.add(command, [options](const GlobalOptions& global) { return smoke_command(global, *options); });
}

}  // namespace pdctl::cli

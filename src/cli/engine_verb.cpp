#include "engine_verb.hpp"

#include <optional>

#include "doctor_gate.hpp"
#include "duration_flag.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/ops/take_over.hpp"
#include "pdctl/report/junit_reporter.hpp"
#include "pdctl/report/takeover_view.hpp"
#include "print_result.hpp"

namespace pdctl::cli {

ExitCode run_engine_verb(const GlobalOptions& global, const StartOptions& options, ops::EngineVerb verb) {
    const std::string name = ops::to_string(verb);
    check_junit_path(options.junit);
    auto context = load_context(global);
    // The static doctor rules gate start/restart before anything touches a node (docs/doctor.md).
    if (verb != ops::EngineVerb::kStop && !options.skip_doctor) {
        const auto refused = doctor_before_start(global, context, name);
        if (refused != ExitCode::kOk) {
            const std::string why = "refused: the static doctor rules found errors (pdctl doctor --static)";
            write_junit_file(options.junit,
                             {{"pdctl " + name,
                               report::junit_timestamp_now(),
                               "",
                               0,
                               {{"pdctl." + name, "doctor (static rules)", 0, why, why, std::nullopt, ""}},
                               ""}},
                             context.redactor);
            return refused;
        }
    }
    if (options.dry_run) {
        if (!options.take_over)
            throw Failure(ExitCode::kUsage, "--dry-run shows what --take-over would stop", "add --take-over");
        const auto scan = ops::scan_for_take_over(context, options.scope, name);
        print_result(
            global, context.redactor, [&] { return report::takeover_to_json(scan); },
            [&] { return report::render_takeover_text(scan); });
        return scan.code();
    }
    ops::EngineRequest request;
    request.verb = verb;
    request.take_over = options.take_over;
    // A bad flag is refused before the lock is taken.
    if (verb != ops::EngineVerb::kStop)
        request.deadline_floor = parse_duration_flag("--deadline-floor", options.deadline_floor);
    request.scope = options.scope;
    request.transfer_error_limit = options.transfer_error_limit;
    request.keep_on_failure = options.keep_on_failure;
    request.prewarm = options.prewarm;
    request.skip_preflight = options.skip_preflight;
    request.gpu_release_timeout =
        parse_duration_flag("--gpu-release-timeout", options.gpu_release_timeout, ZeroDuration::kAllowed);
    request.drain_grace = parse_duration_flag("--drain-grace", options.drain_grace, ZeroDuration::kAllowed);
    request.rolling = options.rolling;
    request.gated = options.gated;
    request.gate_port = options.gate_port;
    request.allow_router_restart = options.allow_router_restart;
    request.deadline_policy = deadline_policy(options.deadline_policy);
    auto reporter = make_reporter(global, context.redactor);
    // --junit: a recorder of the engine's events, written whatever the run's end.
    report::JunitRecorder junit(name);
    if (!options.junit.empty()) request.recorder = &junit;
    ExitCode code = ExitCode::kInternal;
    try {
        code = ops::run_engine(context, request, *reporter);
    } catch (const std::exception& error) {
        if (!options.junit.empty()) {
            junit.fail_run(error.what());
            write_junit_file(options.junit, {junit.suite()}, context.redactor);
        }
        throw;
    }
    write_junit_file(options.junit, {junit.suite()}, context.redactor);
    return code;
}

}  // namespace pdctl::cli

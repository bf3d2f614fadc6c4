// pdctl doctor: the static rules of lint/ over the loaded config and plan (no node touched); and the
// same rules as the gate in front of start/restart, where errors refuse the start.

#include <fmt/format.h>

#include "commands.hpp"
#include "pdctl/lint/render.hpp"
#include "pdctl/lint/rules.hpp"

namespace pdctl::cli {

ExitCode doctor_command(const GlobalOptions& global) {
    const auto context = load_context(global);
    const auto report = lint::run_static_rules(context.cluster, context.plan);
    // Rules never put secret values in findings; the redactor is the second line of defence.
    const std::string text = global.json ? lint::to_json(report).dump(2) : lint::render_text(report);
    fmt::print("{}{}", context.redactor.redact(text), global.json ? "\n" : "");
    return report.errors() > 0 ? ExitCode::kUsage : ExitCode::kOk;
}

ExitCode doctor_before_start(const GlobalOptions& global, const Context& context, const std::string& verb) {
    const auto report = lint::run_static_rules(context.cluster, context.plan);
    if (report.errors() == 0 && report.warnings() == 0) return ExitCode::kOk;
    if (global.json) {
        // One JSON Lines event ahead of the run's own events.
        auto event = lint::to_json(report);
        event["event"] = "doctor";
        event["verb"] = verb;
        event["refused"] = report.errors() > 0;
        fmt::print("{}\n", context.redactor.redact(event.dump()));
        std::fflush(stdout);
    } else {
        // Diagnostics go to stderr, like config errors: stdout stays the run's progress.
        lint::TextOptions options;
        options.show_info = false;
        options.show_summary = false;
        fmt::print(stderr, "{}", context.redactor.redact(lint::render_text(report, options)));
    }
    if (report.errors() == 0) return ExitCode::kOk;
    fmt::print(stderr,
               "pdctl: error: {} refused: `pdctl doctor` found {} error{} in {} (nothing was touched)\n"
               "  hint: fix the config; --skip-doctor starts anyway, for emergencies only\n",
               verb, report.errors(), report.errors() == 1 ? "" : "s", context.cluster.config_path);
    return ExitCode::kUsage;
}

}  // namespace pdctl::cli

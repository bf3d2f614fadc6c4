#include "doctor_gate.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "pdctl/ops/doctor.hpp"
#include "pdctl/report/doctor_view.hpp"

namespace pdctl::cli {

ExitCode doctor_before_start(const GlobalOptions& global, const Context& context, const std::string& verb) {
    const auto report = ops::static_findings(context);
    if (report.errors() == 0 && report.warnings() == 0) return ExitCode::kOk;
    if (global.json) {
        // One JSON Lines event ahead of the run's own events.
        fmt::print("{}\n", context.redactor.redact(report::doctor_gate_event(report, verb).dump()));
        std::fflush(stdout);
    } else {
        // Diagnostics go to stderr, like config errors: stdout stays the run's progress.
        fmt::print(stderr, "{}", context.redactor.redact(report::render_doctor_gate_text(report)));
    }
    if (report.errors() == 0) return ExitCode::kOk;
    fmt::print(stderr, "{}", report::render_doctor_refusal(report, verb, context.cluster.config_path));
    return ExitCode::kUsage;
}

}  // namespace pdctl::cli

#include "pdctl/report/drill_view.hpp"

#include <fmt/format.h>

#include "pdctl/util/durations.hpp"

namespace pdctl::report {
namespace {

std::string failures_line(const ops::DrillResult& result) {
    if (result.failed == 0) return fmt::format("requests: {} sent, none failed", result.sent);
    return fmt::format("requests: {} sent, {} failed, ending {:.1f}s to {:.1f}s after the fault", result.sent,
                       result.failed, result.first_failure_s, result.last_failure_s);
}

std::string recovery_line(const ops::DrillResult& result) {
    if (result.recover_ms < 0) return "not recovered within the deadline: a person is needed";
    return fmt::format("recovered after {:.1f}s by {} ({} heal pass{}): no person needed",
                       result.recover_ms / 1e3, result.recovered_by, result.heal_passes,
                       result.heal_passes == 1 ? "" : "es");
}

}  // namespace

std::string render_drill_text(const ops::DrillResult& result) {
    std::string text = fmt::format("drill {}: {}\n", result.fault, result.target);
    text += "  " + failures_line(result) + "\n";
    for (const auto& [error, count] : result.errors) text += fmt::format("    {} × {}\n", count, error);
    text += result.detect_ms < 0 ? "  status never saw it\n"
                                 : fmt::format("  detected after {:.1f}s\n", result.detect_ms / 1e3);
    for (const auto& action : result.heal_actions) text += "  heal: " + action + "\n";
    text += "  " + recovery_line(result) + "\n";
    for (const auto& note : result.notes) text += "  note: " + note + "\n";
    return text;
}

nlohmann::json drill_to_json(const ops::DrillResult& result) {
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& [error, count] : result.errors) errors.push_back({{"error", error}, {"count", count}});
    return {{"fault", result.fault},
            {"target", result.target},
            {"router", result.router},
            {"sent", result.sent},
            {"failed", result.failed},
            {"errors", errors},
            {"first_failure_s", result.first_failure_s},
            {"last_failure_s", result.last_failure_s},
            {"detect_ms", result.detect_ms},
            {"recover_ms", result.recover_ms},
            {"recovered_by", result.recovered_by},
            {"needed_person", result.needed_person()},
            {"heal_passes", result.heal_passes},
            {"heal_actions", result.heal_actions},
            {"notes", result.notes},
            {"exit_code", to_int(result.code)}};
}

JunitSuite drill_suite(const ops::DrillResult& result, double seconds) {
    JunitSuite suite;
    suite.name = "pdctl drill";
    suite.timestamp = junit_timestamp_now();
    suite.seconds = seconds;
    JunitCase recovered;
    recovered.classname = "pdctl.drill." + result.fault;
    recovered.name = "recovers: " + result.target;
    recovered.seconds =
        result.recover_ms < 0 ? seconds : util::to_seconds(std::chrono::milliseconds(result.recover_ms));
    recovered.output = render_drill_text(result);
    if (result.recover_ms < 0) {
        recovered.failure = recovery_line(result);
        recovered.failure_text = recovered.output;
    }
    suite.cases.push_back(std::move(recovered));
    return suite;
}

}  // namespace pdctl::report

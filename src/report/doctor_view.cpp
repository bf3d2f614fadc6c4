#include "pdctl/report/doctor_view.hpp"

#include <fmt/format.h>

#include "pdctl/report/doctor_report_view.hpp"

namespace pdctl::report {

nlohmann::json doctor_gate_event(const lint::Report& report, const std::string& verb) {
    auto event = doctor_report_json(report);
    event["event"] = "doctor";
    event["verb"] = verb;
    event["refused"] = report.errors() > 0;
    return event;
}

std::string render_doctor_gate_text(const lint::Report& report) {
    DoctorReportOptions options;
    options.show_info = false;
    options.show_summary = false;
    return render_doctor_report(report, options);
}

std::string render_doctor_refusal(const lint::Report& report, const std::string& verb,
                                  const std::string& config_path) {
    return fmt::format(
        "pdctl: error: {} refused: `pdctl doctor` found {} error{} in {} (nothing was touched)\n"
        "  hint: fix the config; --skip-doctor starts anyway, for emergencies only\n",
        verb, report.errors(), report.errors() == 1 ? "" : "s", config_path);
}

}  // namespace pdctl::report

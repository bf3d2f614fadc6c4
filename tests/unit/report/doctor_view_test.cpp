// report/doctor_view: what the doctor gate of start/restart prints.
#include "pdctl/report/doctor_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

using lint::Severity;

lint::Report report_with(std::vector<lint::Finding> findings) {
    lint::Report report;
    report.rules_run = 13;
    report.rules_without_findings = 13 - static_cast<int>(findings.size());
    report.findings = std::move(findings);
    return report;
}

const lint::Finding kError{"PD001",     Severity::Error,        "prefill",
                           "",          {"prefill.env", 14, 1}, "prefill sets expandable_segments",
                           "remove it", "Mooncake #2511"};
const lint::Finding kWarn{"PD012", Severity::Warn, "router", "n5", {}, "n5 port clash", "move it", ""};
const lint::Finding kInfo{"PD010", Severity::Info, "decode", "", {}, "loopback", "fine", ""};

TEST(DoctorView, GateTextHasErrorsAndWarningsButNoInfoOrSummary) {
    EXPECT_EQ(render_doctor_gate_text(report_with({kError, kWarn, kInfo})),
              "ERROR  PD001 prefill.env:14:1  prefill sets expandable_segments\n"
              "             fix: remove it (Mooncake #2511)\n"
              "WARN   PD012 n5  n5 port clash\n"
              "             fix: move it\n");
}

TEST(DoctorView, GateEventIsTheDoctorDocumentTaggedWithTheVerb) {
    const auto refused = doctor_gate_event(report_with({kError, kWarn}), "restart");
    EXPECT_EQ(refused["event"], "doctor");
    EXPECT_EQ(refused["verb"], "restart");
    EXPECT_EQ(refused["refused"], true);
    EXPECT_EQ(refused["errors"], 1);
    EXPECT_EQ(refused["findings"].size(), 2u);
    EXPECT_EQ(doctor_gate_event(report_with({kWarn}), "start")["refused"], false);
}

TEST(DoctorView, RefusalCountsTheErrors) {
    EXPECT_EQ(
        render_doctor_refusal(report_with({kError, kWarn}), "start", "/etc/pd.yaml"),
        "pdctl: error: start refused: `pdctl doctor` found 1 error in /etc/pd.yaml (nothing was touched)\n"
        "  hint: fix the config; --skip-doctor starts anyway, for emergencies only\n");
    EXPECT_EQ(render_doctor_refusal(report_with({kError, kError}), "restart", "c.yaml"),
              "pdctl: error: restart refused: `pdctl doctor` found 2 errors in c.yaml (nothing was touched)\n"
              "  hint: fix the config; --skip-doctor starts anyway, for emergencies only\n");
}

}  // namespace
}  // namespace pdctl::report

// The doctor's text and JSON output.
#include "pdctl/report/doctor_report_view.hpp"

#include <gtest/gtest.h>

#include "pdctl/lint/rules.hpp"

namespace pdctl::report {
namespace {

using lint::Finding;
using lint::LiveSummary;
using lint::Report;
using lint::Severity;

Report sample_report() {
    Report report;
    report.rules_run = 13;
    report.rules_without_findings = 11;
    Finding error{"PD001",
                  Severity::Error,
                  "prefill",
                  "",
                  {"profiles/k3/prefill.env", 14, 1},
                  "prefill sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                  "remove it",
                  "docs/doctor.md#pd001 · https://github.com/kvcache-ai/Mooncake/issues/2511"};
    Finding warn{"PD012", Severity::Warn, "router", "n5", {}, "n5 port clash", "move it", ""};
    Finding info{"PD010", Severity::Info, "decode", "", {}, "loopback", "fine", "docs/doctor.md#pd010"};
    report.findings = {error, warn, info};
    return report;
}

TEST(DoctorReportView, TextHasOneLinePerFindingItsFixAndTheOkLine) {
    EXPECT_EQ(render_doctor_report(sample_report()),
              "ERROR  PD001 profiles/k3/prefill.env:14:1  prefill sets "
              "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
              "             fix: remove it (docs/doctor.md#pd001 · "
              "https://github.com/kvcache-ai/Mooncake/issues/2511)\n"
              "WARN   PD012 n5  n5 port clash\n"
              "             fix: move it\n"
              "INFO   PD010 decode  loopback\n"
              "             fix: fine (docs/doctor.md#pd010)\n"
              "OK     11 other static rules found nothing (no node touched)\n"
              "1 error, 1 warning, 1 info\n");
}

TEST(DoctorReportView, PreStartTextLeavesOutInfoAndSummary) {
    DoctorReportOptions options;
    options.show_info = false;
    options.show_summary = false;
    const auto text = render_doctor_report(sample_report(), options);
    EXPECT_EQ(text.find("PD010"), std::string::npos);
    EXPECT_EQ(text.find("OK"), std::string::npos);
    EXPECT_NE(text.find("PD012"), std::string::npos);
}

TEST(DoctorReportView, CleanReport) {
    Report report;
    report.rules_run = 13;
    report.rules_without_findings = 13;
    EXPECT_EQ(render_doctor_report(report), "OK     all 13 static rules passed (no node touched)\n");
}

TEST(DoctorReportView, LiveSummaryLineCountsChecksNodesAndTime) {
    Report clean;
    clean.rules_run = clean.rules_without_findings = 13;
    clean.live = LiveSummary{8, 48, 48, 0, 1234};
    EXPECT_EQ(render_doctor_report(clean),
              "OK     all 13 static rules passed\n"
              "OK     all 48 checks on 8 nodes passed (1.2 s)\n");
    auto report = sample_report();
    report.live = LiveSummary{8, 48, 46, 0, 950};
    const auto text = render_doctor_report(report);
    EXPECT_NE(text.find("OK     11 other static rules found nothing\n"
                        "OK     46 other checks on 8 nodes passed (0.9 s)\n"
                        "1 error, 1 warning, 1 info\n"),
              std::string::npos)
        << text;
    const auto json = doctor_report_json(report);
    EXPECT_EQ(json["live"]["checks"], 48);
    EXPECT_EQ(json["live"]["elapsed_ms"], 950);
    EXPECT_TRUE(doctor_report_json(sample_report())["live"].is_null());
}

TEST(DoctorReportView, AnAcknowledgedRuleIsOneLineWithItsReason) {
    Report report;
    report.rules_run = 17;
    report.rules_without_findings = 16;
    report.acknowledged = {{{"PD014", "confirmed with the site team", {"pdctl.yaml", 40, 13}}, 10, 0},
                           {{"PD001", "old entry", {"pdctl.yaml", 41, 13}}, 0, 0}};
    EXPECT_EQ(render_doctor_report(report),
              "ACK    PD014 pdctl.yaml:40:13  acknowledged, 10 findings held back\n"
              "             reason: confirmed with the site team\n"
              "ACK    PD001 pdctl.yaml:41:13  acknowledged, found nothing this time (a stale entry?)\n"
              "             reason: old entry\n"
              "OK     16 other static rules found nothing (no node touched)\n"
              "0 errors, 0 warnings, 0 info\n");
    report.acknowledged[0].errors = 2;
    EXPECT_NE(render_doctor_report(report).find("10 findings held back (2 would block a start)"),
              std::string::npos);
    const auto json = doctor_report_json(report);
    ASSERT_EQ(json["acknowledged"].size(), 2u);
    EXPECT_EQ(json["acknowledged"][0]["rule"], "PD014");
    EXPECT_EQ(json["acknowledged"][0]["reason"], "confirmed with the site team");
    EXPECT_EQ(json["acknowledged"][0]["location"], "pdctl.yaml:40:13");
    EXPECT_EQ(json["acknowledged"][0]["findings"], 10);
    EXPECT_EQ(json["acknowledged"][0]["errors"], 2);
}

TEST(DoctorReportView, JsonDocument) {
    const auto json = doctor_report_json(sample_report());
    EXPECT_EQ(json["errors"], 1);
    EXPECT_EQ(json["warnings"], 1);
    EXPECT_EQ(json["infos"], 1);
    EXPECT_EQ(json["rules"], 13);
    ASSERT_EQ(json["findings"].size(), 3u);
    const auto& first = json["findings"][0];
    EXPECT_EQ(first["id"], "PD001");
    EXPECT_EQ(first["severity"], "error");
    EXPECT_EQ(first["role"], "prefill");
    EXPECT_TRUE(first["node"].is_null());
    EXPECT_EQ(first["location"], "profiles/k3/prefill.env:14:1");
    EXPECT_EQ(first["reference"],
              "docs/doctor.md#pd001 · https://github.com/kvcache-ai/Mooncake/issues/2511");
    EXPECT_EQ(json["findings"][1]["severity"], "warn");
    EXPECT_EQ(json["findings"][1]["node"], "n5");
    EXPECT_TRUE(json["findings"][1]["location"].is_null());
}

}  // namespace
}  // namespace pdctl::report

#pragma once
// The doctor's output: text for people (one line per finding, its fix below, a closing OK line)
// and one JSON document for CI. Callers pass the result through the Redactor before printing.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/lint/rules.hpp"
#include "pdctl/report/junit.hpp"

namespace pdctl::report {

struct DoctorReportOptions {
    bool show_info = true;     // info findings (the pre-start check shows errors and warnings only)
    bool show_summary = true;  // the closing OK / count lines
    // The same finding on many nodes and devices as one entry (lint/folded_findings.hpp); a finding
    // at a file:line always stands alone. -v shows each (doctor -v); --json always has each.
    bool fold = true;
};

std::string render_doctor_report(const lint::Report& report, const DoctorReportOptions& options = {});
// {"findings": [...], "errors": N, "warnings": N, "infos": N, "rules": N}
nlohmann::json doctor_report_json(const lint::Report& report);
// doctor --junit: one test case per static rule (failed by its errors), and with the live checks one per
// node (failed by that node's errors) plus one for the checks across nodes; warnings and infos go to
// the case's output, since they fail nothing. `nodes`: the cluster's node names, in config order.
JunitSuite doctor_to_junit(const lint::Report& report, const std::vector<std::string>& nodes,
                           const std::string& timestamp, double seconds);

}  // namespace pdctl::report

#pragma once
// JUnit XML, the report format CI systems read (GitLab, Jenkins, GitHub's test reporters): one
// <testsuite> per verb run, one <testcase> per check, stage or gate with its time and, when it failed,
// the failure text. `--junit FILE` on start, restart, smoke and doctor. The shape follows the schema in
// tests/junit/junit.xsd, which the tests validate every file against.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

struct JunitCase {
    std::string classname;  // "pdctl.start.prefill"
    std::string name;       // "gate rank0 /health == 200"
    double seconds = 0;
    std::optional<std::string> failure;  // the one-line message; its text below
    std::string failure_text;
    std::optional<std::string> skipped;  // why
    std::string output;                  // <system-out>
};

struct JunitSuite {
    std::string name;       // "pdctl start"
    std::string timestamp;  // ISO 8601, UTC: "2026-12-02T12:00:00"
    std::string hostname;
    double seconds = 0;
    std::vector<JunitCase> cases;
    std::string output;  // the suite's <system-out>: notes
};

// The document: <testsuites> with the totals, then each suite. Text is escaped, and characters XML
// 1.0 cannot carry (terminal escapes, other control characters) are dropped.
std::string render_junit(const std::vector<JunitSuite>& suites);

// Writes `suites` to `path` (replacing it); false with `error` set when it cannot.
bool write_junit(const std::string& path, const std::vector<JunitSuite>& suites, std::string& error);

// Every text of `suites` with its secrets replaced: a failure's log tail can quote one.
std::vector<JunitSuite> redacted(std::vector<JunitSuite> suites, const util::Redactor& redactor);

// "2026-12-02T12:00:00" for now.
std::string junit_timestamp_now();

}  // namespace pdctl::report

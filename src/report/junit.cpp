#include "pdctl/report/junit.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "pdctl/report/xml_text.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::report {
namespace {

// Text nodes keep their line breaks as they are.
std::string xml_text(const std::string& text) {
    std::string out = xml_escape(text);
    std::string::size_type at = 0;
    while ((at = out.find("&#10;", at)) != std::string::npos) out.replace(at, 5, "\n");
    return out;
}

std::string seconds(double value) {
    return fmt::format("{:.3f}", value < 0 ? 0 : value);
}

}  // namespace

std::string render_junit(const std::vector<JunitSuite>& suites) {
    std::size_t tests = 0, failures = 0, skipped = 0;
    double total = 0;
    for (const auto& suite : suites) {
        total += suite.seconds;
        for (const auto& test : suite.cases) {
            ++tests;
            failures += test.failure ? 1 : 0;
            skipped += test.skipped ? 1 : 0;
        }
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format(
        "<testsuites name=\"pdctl\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\">\n",
        tests, failures, skipped, seconds(total));
    for (std::size_t index = 0; index < suites.size(); ++index) {
        const auto& suite = suites[index];
        std::size_t suite_failures = 0, suite_skipped = 0;
        for (const auto& test : suite.cases) {
            suite_failures += test.failure ? 1 : 0;
            suite_skipped += test.skipped ? 1 : 0;
        }
        out += fmt::format(
            "  <testsuite name=\"{}\" id=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
            "time=\"{}\" "
            "timestamp=\"{}\" hostname=\"{}\">\n",
            xml_escape(suite.name), index, suite.cases.size(), suite_failures, suite_skipped,
            seconds(suite.seconds), xml_escape(suite.timestamp),
            xml_escape(suite.hostname.empty() ? "localhost" : suite.hostname));
        for (const auto& test : suite.cases) {
            out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
                               xml_escape(test.classname), xml_escape(test.name), seconds(test.seconds));
            if (!test.failure && !test.skipped && test.output.empty()) {
                out += "/>\n";
                continue;
            }
            out += ">\n";
            if (test.skipped)
                out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(*test.skipped));
            if (test.failure)
                out += fmt::format("      <failure message=\"{}\" type=\"failure\">{}</failure>\n",
                                   xml_escape(*test.failure),
                                   xml_text(test.failure_text.empty() ? *test.failure : test.failure_text));
            if (!test.output.empty())
                out += fmt::format("      <system-out>{}</system-out>\n", xml_text(test.output));
            out += "    </testcase>\n";
        }
        if (!suite.output.empty())
            out += fmt::format("    <system-out>{}</system-out>\n", xml_text(suite.output));
        out += "  </testsuite>\n";
    }
    return out + "</testsuites>\n";
}

bool write_junit(const std::string& path, const std::vector<JunitSuite>& suites, std::string& error) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << render_junit(suites);
    out.close();
    if (out) return true;
    error = std::strerror(errno);
    return false;
}

std::vector<JunitSuite> redacted(std::vector<JunitSuite> suites, const util::Redactor& redactor) {
    const auto scrub = [&](std::string& text) { text = redactor.redact(text); };
    for (auto& suite : suites) {
        scrub(suite.name);
        scrub(suite.output);
        for (auto& test : suite.cases) {
            scrub(test.classname);
            scrub(test.name);
            scrub(test.failure_text);
            scrub(test.output);
            if (test.failure) scrub(*test.failure);
            if (test.skipped) scrub(*test.skipped);
        }
    }
    return suites;
}

std::string junit_timestamp_now() {
    auto stamp = util::utc_text(util::epoch_ms_now());
    stamp.pop_back();  // the schema's timestamp has no zone: the 'Z'
    return stamp;
}

}  // namespace pdctl::report

// JUnit XML (report/junit.hpp): counts, escaping, and what XML 1.0 cannot carry.
#include "pdctl/report/junit.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

TEST(Junit, CountsCasesFailuresAndSkipsPerSuiteAndInTotal) {
    JunitSuite suite{"pdctl start", "2026-12-02T12:00:00", "ctl", 12.5, {}, "a note"};
    suite.cases.push_back(
        {"pdctl.start.prefill", "launch on 4 nodes", 1.25, std::nullopt, "", std::nullopt, ""});
    suite.cases.push_back(
        {"pdctl.start.prefill", "gate", 10, std::string("exited (code 1)"), "log", std::nullopt, ""});
    suite.cases.push_back(
        {"pdctl.start.router", "gate", 0, std::nullopt, "", std::string("already ready"), ""});
    const auto xml = render_junit({suite});
    EXPECT_NE(xml.find("<testsuites name=\"pdctl\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
                       "time=\"12.500\">"),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"12.500\" "
                       "timestamp=\"2026-12-02T12:00:00\" "
                       "hostname=\"ctl\""),
              std::string::npos)
        << xml;
    EXPECT_NE(
        xml.find("<testcase classname=\"pdctl.start.prefill\" name=\"launch on 4 nodes\" time=\"1.250\"/>"),
        std::string::npos);
    EXPECT_NE(xml.find("<failure message=\"exited (code 1)\" type=\"failure\">log</failure>"),
              std::string::npos);
    EXPECT_NE(xml.find("<skipped message=\"already ready\"/>"), std::string::npos);
    EXPECT_NE(xml.find("<system-out>a note</system-out>"), std::string::npos) << xml;
}

TEST(Junit, EscapesMarkupAndDropsTerminalEscapesAndControlCharacters) {
    JunitSuite suite{"s", "2026-12-02T12:00:00", "h", 0, {}, ""};
    suite.cases.push_back({"c", "a <b> & \"c\"", 0, std::string("\x1b[31mred\x1b[0m\x01"),
                           "line 1\nline\x07 2", std::nullopt, ""});
    const auto xml = render_junit({suite});
    EXPECT_NE(xml.find("name=\"a &lt;b&gt; &amp; &quot;c&quot;\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("message=\"red\""), std::string::npos) << xml;
    EXPECT_NE(xml.find(">line 1\nline 2</failure>"), std::string::npos) << xml;
    EXPECT_EQ(xml.find('\x1b'), std::string::npos);
    EXPECT_EQ(xml.find('\x07'), std::string::npos);
}

TEST(Junit, RedactsEveryText) {
    util::Redactor redactor;
    redactor.add_secret("hf_topsecret");
    JunitSuite suite{"s", "t", "h", 0, {}, "note hf_topsecret"};
    suite.cases.push_back(
        {"c", "n", 0, std::string("token hf_topsecret"), "tail hf_topsecret", std::nullopt, ""});
    const auto xml = render_junit(redacted({suite}, redactor));
    EXPECT_EQ(xml.find("hf_topsecret"), std::string::npos) << xml;
}

}  // namespace
}  // namespace pdctl::report

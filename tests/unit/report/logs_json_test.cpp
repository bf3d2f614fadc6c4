// `pdctl --json logs`: one JSON object per line, each naming its unit, the text redacted.
#include "pdctl/report/logs_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace pdctl::report {
namespace {

std::vector<nlohmann::json> lines_of(const std::string& out) {
    std::vector<nlohmann::json> objects;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) objects.push_back(nlohmann::json::parse(line));
    return objects;
}

TEST(LogJsonPrinter, EveryEventIsOneObjectNamingItsUnit) {
    plan::Unit unit;
    unit.name = "pd-x-decode-1";
    unit.role = "decode";
    unit.node = "n6";
    unit.rank = 1;
    ops::LogTarget target;
    target.unit = &unit;
    util::Redactor redactor;
    redactor.add_secret("s3cret");
    LogJsonPrinter printer(redactor);
    ::testing::internal::CaptureStdout();
    printer.begin({target});
    printer.line(0, "token s3cret loaded");
    printer.line(0, std::string("bad byte \xff here"));
    printer.restarted(0);
    printer.trouble(0, "cannot read the log");
    printer.flush();
    const auto objects = lines_of(::testing::internal::GetCapturedStdout());
    ASSERT_EQ(objects.size(), 4u);
    EXPECT_EQ(objects[0], (nlohmann::json{{"event", "line"},
                                          {"role", "decode"},
                                          {"node", "n6"},
                                          {"rank", 1},
                                          {"unit", "pd-x-decode-1"},
                                          {"text", "token [REDACTED] loaded"}}));
    EXPECT_EQ(objects[1]["text"], "bad byte \xef\xbf\xbd here");
    EXPECT_EQ(objects[2]["event"], "restarted");
    EXPECT_FALSE(objects[2].contains("text"));
    EXPECT_EQ(objects[3]["event"], "trouble");
    EXPECT_EQ(objects[3]["error"], "cannot read the log");
}

}  // namespace
}  // namespace pdctl::report

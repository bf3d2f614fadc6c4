// unit_progress in the line reporters: one timestamped line (CI) or one JSON event per change, nothing
// for the periodic refreshes.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>

#include "pdctl/plan/builder.hpp"
#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/durations.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::report {
using engine::UnitProgress;
using runtime::Phase;
using util::format_clock;

namespace {

using namespace std::chrono_literals;

class CapturedOutput {
  public:
    CapturedOutput() : file_(std::tmpfile()) {}
    ~CapturedOutput() { std::fclose(file_); }
    std::FILE* file() { return file_; }
    std::string text() {
        std::fflush(file_);
        std::rewind(file_);
        std::string out;
        char buffer[4096];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0) out.append(buffer, n);
        return out;
    }

  private:
    std::FILE* file_;
};

UnitProgress entered_kv() {
    UnitProgress progress;
    progress.phase = Phase::kKvCache;
    progress.phase_changed = true;
    progress.previous = Phase::kLoadingWeights;
    progress.previous_took = 250s;
    progress.stage_elapsed = 291s;
    progress.phase_elapsed = 1s;
    progress.phase_line = "[2026-11-29 08:16:54 TP0] Load weight end. type=DeepseekV3ForCausalLM";
    progress.last_line = progress.phase_line;
    return progress;
}

class ProgressReportersTest : public ::testing::Test {
  protected:
    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    const plan::Stage& prefill = *plan.find_stage("prefill");
    util::Redactor redactor;
    CapturedOutput out;
};

TEST_F(ProgressReportersTest, TextPrintsOneUtcLinePerPhaseChange) {
    TextReporter reporter(out.file(), redactor, /*utc_timestamps=*/true);
    auto periodic = entered_kv();
    periodic.phase_changed = false;
    periodic.previous.reset();
    reporter.unit_progress(prefill, prefill.units[0], entered_kv());
    reporter.unit_progress(prefill, prefill.units[0], periodic);
    const auto text = out.text();
    const std::regex expected(
        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ prefill n1 rank0 phase=kv-cache elapsed=4:51 "
        "\\(loading-weights took 4:10\\)\n");
    EXPECT_TRUE(std::regex_match(text, expected)) << text;
}

TEST_F(ProgressReportersTest, TextNamesTheFailureLineAndEachNewWarning) {
    TextReporter reporter(out.file(), redactor, true);
    UnitProgress failed;
    failed.phase = Phase::kFailed;
    failed.phase_changed = true;
    failed.stage_elapsed = 7s;
    failed.phase_line =
        "[2026-11-29 08:15:14 TP16] Scheduler hit an exception: Mooncake memory registration failed";
    failed.new_warnings = {"Mooncake found 0 HCAs: no RDMA device, the KV transfer falls back to TCP"};
    reporter.unit_progress(prefill, prefill.units[2], failed);
    const auto text = out.text();
    EXPECT_NE(
        text.find("prefill n3 rank2 phase=failed elapsed=0:07: [2026-11-29 08:15:14 TP16] Scheduler hit"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("prefill n3 rank2 warning: Mooncake found 0 HCAs"), std::string::npos) << text;
}

TEST_F(ProgressReportersTest, JsonLinesEventPerChangeOnly) {
    JsonLinesReporter reporter(out.file(), redactor);
    auto periodic = entered_kv();
    periodic.phase_changed = false;
    reporter.unit_progress(prefill, prefill.units[1], entered_kv());
    reporter.unit_progress(prefill, prefill.units[1], periodic);
    const auto text = out.text();
    ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    const auto event = nlohmann::json::parse(text);
    EXPECT_EQ(event["event"], "unit_progress");
    EXPECT_EQ(event["role"], "prefill");
    EXPECT_EQ(event["node"], "n2");
    EXPECT_EQ(event["rank"], 1);
    EXPECT_EQ(event["unit"], "pd-demo-prefill-1");
    EXPECT_EQ(event["phase"], "kv-cache");
    EXPECT_EQ(event["elapsed_ms"], 291000);
    EXPECT_EQ(event["phase_elapsed_ms"], 1000);
    EXPECT_EQ(event["stalled_for_ms"], 0);
    EXPECT_EQ(event["previous_phase"], "loading-weights");
    EXPECT_EQ(event["previous_phase_ms"], 250000);
    EXPECT_TRUE(event["warnings"].empty());
}

TEST(FormatClock, MinutesAndHours) {
    EXPECT_EQ(format_clock(0ms), "0:00");
    EXPECT_EQ(format_clock(41999ms), "0:41");
    EXPECT_EQ(format_clock(398s), "6:38");
    EXPECT_EQ(format_clock(3723s), "1:02:03");
    EXPECT_EQ(format_clock(-5s), "0:00");
}

}  // namespace
}  // namespace pdctl::report

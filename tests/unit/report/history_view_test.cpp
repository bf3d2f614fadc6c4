#include "pdctl/report/history_view.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

using state::journal::RunRecord;
using ::testing::HasSubstr;

std::vector<RunRecord> sample_runs() {
    RunRecord failed;
    failed.run = "r2";
    failed.started = "2026-11-29T09:00:00Z";
    failed.verb = "start";
    failed.who = "bob@jump2";
    failed.result = "stage failed";
    failed.exit_code = 4;
    failed.duration_ms = 192000;
    failed.failed_role = "prefill";
    failed.failed_node = "n3";
    failed.failed_rank = 2;
    failed.failed_reason = "exited (code 1)";
    failed.complete = true;
    RunRecord ok;
    ok.run = "r1";
    ok.started = "2026-11-29T08:00:00Z";
    ok.verb = "stop";
    ok.who = "alice@jump1";
    ok.result = "success";
    ok.exit_code = 0;
    ok.duration_ms = 4200;
    ok.complete = true;
    return {failed, ok};
}

TEST(HistoryView, OneAlignedRowPerRunWithWhereItFailed) {
    const auto text = render_history_text(sample_runs(), "n1:/x/journal.jsonl");
    EXPECT_EQ(text,
              "TIME (UTC)           RUN  VERB   WHO          RESULT          EXIT  DURATION  CONFIG  WHERE "
              "IT FAILED\n"
              "2026-11-29 09:00:00  r2   start  bob@jump2    ✗ stage failed  4     3m12s     -       prefill "
              "n3 rank2: "
              "exited (code 1)\n"
              "2026-11-29 08:00:00  r1   stop   alice@jump1  ✓ success       0     4.2s      -\n");
}

TEST(HistoryView, SaysWhereItLookedWhenThereIsNothing) {
    EXPECT_EQ(render_history_text({}, "n1:/x/journal.jsonl"),
              "no runs recorded yet in n1:/x/journal.jsonl\n");
}

TEST(HistoryView, JsonCarriesEveryField) {
    const auto document = history_to_json(sample_runs(), "kimi3", "n1:/x/journal.jsonl");
    EXPECT_EQ(document["cluster"], "kimi3");
    ASSERT_EQ(document["runs"].size(), 2u);
    EXPECT_EQ(document["runs"][0]["exit_code"], 4);
    EXPECT_EQ(document["runs"][0]["failed"]["node"], "n3");
    EXPECT_EQ(document["runs"][0]["duration_ms"], 192000);
    EXPECT_TRUE(document["runs"][1]["failed"].is_null());
    EXPECT_EQ(document["runs"][1]["who"], "alice@jump1");
}

}  // namespace
}  // namespace pdctl::report

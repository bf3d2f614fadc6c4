// The journal's command builders (run for real) and the history parser.
#include "pdctl/state/journal.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "unit/support/script_sandbox.hpp"

namespace pdctl::state::journal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(JournalCommands, AppendSendsTheTextOnStdinToAFixedScript) {
    const std::string evil = "{\"note\":\"$(rm -rf /) `reboot` '\\\"\"}\n";
    const auto command = append_command("/var/lib/pdctl/kimi3", evil);
    ASSERT_EQ(command.argv.size(), 5u);
    EXPECT_EQ(command.argv[4], "/var/lib/pdctl/kimi3");
    for (const auto& word : command.argv) EXPECT_THAT(word, Not(HasSubstr("reboot")));
    EXPECT_EQ(command.stdin_data, evil);
    EXPECT_THAT(command.argv[2], HasSubstr("cat >> \"$dir/journal.jsonl\""));
}

TEST(JournalCommands, AppendsAndReadsBackExactly) {
    testing::ScriptSandbox sandbox("journal");
    const std::string dir = (sandbox.dir() / "state" / "kimi3").string();
    EXPECT_EQ(sandbox.run(read_command(dir, 1024)).out, "") << "no journal yet: nothing, and no error";
    const std::string first = "{\"run\":\"a\",\"note\":\"$(touch /tmp/pwned) `x` '\"}\n";
    const std::string second = "{\"run\":\"b\"}\n";
    ASSERT_TRUE(sandbox.run(append_command(dir, first)).ok());
    ASSERT_TRUE(sandbox.run(append_command(dir, second)).ok());
    EXPECT_EQ(sandbox.read(journal_path(dir)), first + second);
    const auto all = sandbox.run(read_command(dir, 1 << 20));
    ASSERT_TRUE(all.ok()) << all.err;
    EXPECT_EQ(all.out, first + second);
    EXPECT_EQ(sandbox.run(read_command(dir, second.size())).out, second) << "the last bytes only";
}

TEST(JournalRunId, IsSortableUtcTimeAndRandomBits) {
    const auto at = std::chrono::system_clock::time_point(std::chrono::seconds(1795939923));
    EXPECT_EQ(new_run_id(at, 0xabcdefu), "20261129T081203Z-abcdef");
    EXPECT_TRUE(std::regex_match(new_run_id(std::chrono::system_clock::now(), 7),
                                 std::regex(R"(\d{8}T\d{6}Z-[0-9a-f]{6})")));
}

// Lines as JournalingReporter writes them (only the fields the parser reads).
const char* kJournal =
    R"jsonl({"run":"r1","seq":0,"ts":"2026-11-29T08:00:00Z","epoch_ms":1000,"verb":"start","event":"record_begin","who":"alice@jump1","config":"abc","version":"0.1.0"}
{"run":"r1","seq":1,"ts":"2026-11-29T08:00:01Z","epoch_ms":2000,"verb":"start","event":"stage_begin","role":"prefill"}
{"run":"r1","seq":2,"ts":"2026-11-29T08:00:09Z","epoch_ms":9000,"verb":"start","event":"record_end","exit_code":0,"result":"success","elapsed_ms":8000,"message":"all stages ready"}
{"run":"r2","seq":0,"ts":"2026-11-29T09:00:00Z","epoch_ms":3600000,"verb":"start","event":"record_begin","who":"bob@jump2","config":"abd","version":"0.1.0"}
not json at all
{"run":"r2","seq":1,"ts":"2026-11-29T09:00:03Z","epoch_ms":3603000,"verb":"start","event":"stage_failed","role":"prefill","node":"n3","rank":2,"reason":"exited (code 1)"}
{"run":"r2","seq":2,"ts":"2026-11-29T09:00:04Z","epoch_ms":3604000,"verb":"start","event":"record_end","exit_code":4,"result":"stage failed","elapsed_ms":4000,"message":"prefill failed: exited (code 1)","failed":{"role":"prefill","node":"n3","rank":2,"reason":"exited (code 1)"}}
{"run":"r3","seq":0,"ts":"2026-11-29T10:00:00Z","epoch_ms":7200000,"verb":"stop","event":"record_begin","who":"carol@jump1"}
{"run":"r3","seq":1,"ts":"2026-11-29T10:00:05Z","epoch_ms":7205000,"verb":"stop","event":"stage_begin","role":"router"}
)jsonl";

TEST(JournalHistory, SummarisesEachRun) {
    const auto runs = parse_history(kJournal);
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].run, "r1");
    EXPECT_EQ(runs[0].verb, "start");
    EXPECT_EQ(runs[0].who, "alice@jump1");
    EXPECT_EQ(runs[0].started, "2026-11-29T08:00:00Z");
    EXPECT_EQ(runs[0].result, "success");
    EXPECT_EQ(runs[0].exit_code, 0);
    EXPECT_EQ(runs[0].duration_ms, 8000);
    EXPECT_TRUE(runs[0].complete);
    EXPECT_TRUE(runs[0].failed_role.empty());

    EXPECT_EQ(runs[1].result, "stage failed");
    EXPECT_EQ(runs[1].exit_code, 4);
    EXPECT_EQ(runs[1].failed_role, "prefill");
    EXPECT_EQ(runs[1].failed_node, "n3");
    EXPECT_EQ(runs[1].failed_rank, 2);
    EXPECT_EQ(runs[1].failed_reason, "exited (code 1)");

    EXPECT_FALSE(runs[2].complete) << "a run whose end never reached the journal";
    EXPECT_EQ(runs[2].result, "unfinished");
    EXPECT_EQ(runs[2].exit_code, -1);
    EXPECT_EQ(runs[2].duration_ms, 5000) << "at least until its last line";
}

TEST(JournalHistory, ARunWhoseBeginningWasCutOffIsLeftOut) {
    const std::string journal = kJournal;
    const std::string cut =
        journal.substr(journal.find("\"seq\":1") - 5);  // cut mid-line, and r1 has lost its first line
    const auto runs = parse_history(cut);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].run, "r2");
}

TEST(JournalHistory, NewestFirstWithALimit) {
    const auto runs = newest(parse_history(kJournal), 2);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].run, "r3");
    EXPECT_EQ(runs[1].run, "r2");
    EXPECT_EQ(newest(parse_history(kJournal), 10).size(), 3u);
    EXPECT_TRUE(parse_history("").empty());
}

// What status shows for a MiniLB router without --probe: the last gate of its stage, whichever run.
TEST(JournalLastGate, TheNewestReadyOrFailedLineOfTheRoleWins) {
    const std::string journal =
        std::string(kJournal) +
        R"jsonl({"run":"r4","seq":0,"ts":"2026-11-29T11:00:00Z","epoch_ms":9000000,"verb":"start","event":"record_begin"}
{"run":"r4","seq":1,"ts":"2026-11-29T11:00:04Z","epoch_ms":9004000,"verb":"start","event":"stage_ready","role":"router","node":"n5"}
{"run":"r5","seq":0,"ts":"2026-11-29T12:00:00Z","epoch_ms":9900000,"verb":"restart","event":"record_begin"}
{"run":"r5","seq":1,"ts":"2026-11-29T12:00:07Z","epoch_ms":9907000,"verb":"restart","event":"stage_failed","role":"router","node":"n5","rank":0,"reason":"POST /generate: HTTP 500"}
{"run":"r5","seq":2,"ts":"2026-11-29T12:00:08Z","epoch_ms":9908000,"verb":"restart","event":"stage_ready","role":"decode"}
)jsonl";
    const auto router = last_gate_result(journal, "router");
    ASSERT_TRUE(router.has_value());
    EXPECT_EQ(router->run, "r5");
    EXPECT_EQ(router->verb, "restart");
    EXPECT_EQ(router->at, "2026-11-29T12:00:07Z");
    EXPECT_EQ(router->at_epoch_ms, 9907000);
    EXPECT_FALSE(router->passed);
    EXPECT_EQ(router->reason, "n5 rank 0: POST /generate: HTTP 500");

    const auto before = last_gate_result(journal.substr(0, journal.find(R"({"run":"r5")")), "router");
    ASSERT_TRUE(before.has_value());
    EXPECT_EQ(before->run, "r4");
    EXPECT_TRUE(before->passed);
    EXPECT_TRUE(before->reason.empty());

    EXPECT_FALSE(last_gate_result(kJournal, "router").has_value()) << "a stop's stage_begin is no gate";
    EXPECT_FALSE(last_gate_result("", "router").has_value());
}

}  // namespace
}  // namespace pdctl::state::journal

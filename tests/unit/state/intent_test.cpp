// The operators' intent on the coordinator: a stop marks its stages, a start clears them, a pause ends by
// itself, and a damaged document reads as no intent (a deliberate stop then looks absent, never the other
// way round).
#include "pdctl/state/intent.hpp"

#include <gtest/gtest.h>

namespace pdctl::state::intent {
namespace {

constexpr long long kNow = 1'800'000'000'000;

Act act(const std::string& run, long long epoch_ms) {
    return {"alice@ops1", "2027-01-15T08:00:00Z", epoch_ms, run};
}

TEST(Intent, AStopMarksItsStagesAndAStartClearsOnlyItsOwn) {
    Intent intent;
    EXPECT_TRUE(mark_stopped(intent, {"decode", "decode-2"},
                             {act("r1", kNow), "pdctl stop --role decode", "pdctl start --role decode"}));
    EXPECT_TRUE(clear_stopped(intent, {"decode"}));
    EXPECT_FALSE(clear_stopped(intent, {"prefill"})) << "nothing of prefill was marked";
    ASSERT_NE(intent.stopped_on_purpose("decode-2"), nullptr);
    EXPECT_EQ(intent.stopped_on_purpose("decode-2")->bring_back, "pdctl start --role decode");
    EXPECT_EQ(intent.stopped_on_purpose("decode"), nullptr);
}

TEST(Intent, TheDocumentReadsBackWhatWasWritten) {
    Intent intent;
    mark_stopped(intent, {"decode-2"},
                 {act("r1", kNow), "pdctl stop --group decode-2", "pdctl start --group decode-2"});
    intent.pause = HealPause{act("r2", kNow), kNow + 60'000, "switch firmware \"upgrade\""};
    const auto back = parse(to_text(intent));
    ASSERT_NE(back.stopped_on_purpose("decode-2"), nullptr);
    EXPECT_EQ(back.stopped_on_purpose("decode-2")->act.who, "alice@ops1");
    EXPECT_EQ(back.stopped_on_purpose("decode-2")->command, "pdctl stop --group decode-2");
    ASSERT_NE(back.active_pause(kNow), nullptr);
    EXPECT_EQ(back.active_pause(kNow)->reason, "switch firmware \"upgrade\"");
}

TEST(Intent, APauseEndsByItself) {
    Intent intent;
    intent.pause = HealPause{act("r", kNow), kNow + 60'000, "maintenance"};
    EXPECT_NE(intent.active_pause(kNow + 59'999), nullptr);
    EXPECT_EQ(intent.active_pause(kNow + 60'000), nullptr);
}

TEST(Intent, ADamagedOrMissingDocumentIsNoIntent) {
    for (const auto* text : {"", "{", "[1,2]", "{\"stopped\": 3, \"pause\": \"x\"}"}) {
        const auto intent = parse(text);
        EXPECT_TRUE(intent.stopped.empty()) << text;
        EXPECT_FALSE(intent.pause) << text;
    }
}

TEST(Intent, TheJournalsChangesAreReadInOrder) {
    const std::string journal =
        R"({"run":"a","epoch_ms":5,"event":"intent","change":"stopped","stages":["decode-2"]})"
        "\n"
        R"({"run":"a","epoch_ms":6,"event":"stage_begin","role":"decode-2"})"
        "\n"
        "{not json\n"
        R"({"run":"b","epoch_ms":9,"event":"intent","change":"started","stages":["decode-2","router"]})"
        "\n";
    const auto changes = journal_changes(journal);
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].kind, "stopped");
    EXPECT_EQ(changes[1].stages, (std::vector<std::string>{"decode-2", "router"}));
    EXPECT_EQ(changes[1].epoch_ms, 9);
}

TEST(Intent, TheScopesWordsAreTheFlagsThatNameIt) {
    EXPECT_EQ(scope_words({}, {}), "");
    EXPECT_EQ(scope_words({"decode"}, {"prefill-2"}), " --role decode --group prefill-2");
}

TEST(Intent, APausedRolloutReadsBackWholeAndAnEmptyDocumentHasNone) {
    Intent intent;
    intent.rollout = PausedRollout{{"alice@h1", "2026-12-07T10:00:00Z", 1796637600000, "r1"},
                                   std::string(64, 'a'),
                                   std::string(64, 'b'),
                                   "r0 (config bbbbbbbbbbbb)",
                                   "decode"};
    const auto back = parse(to_text(intent));
    ASSERT_TRUE(back.rollout);
    EXPECT_EQ(back.rollout->config_id, std::string(64, 'a'));
    EXPECT_EQ(back.rollout->previous_config_id, std::string(64, 'b'));
    EXPECT_EQ(back.rollout->previous_run, "r0 (config bbbbbbbbbbbb)");
    EXPECT_EQ(back.rollout->canary, "decode");
    EXPECT_EQ(back.rollout->act.who, "alice@h1");
    EXPECT_FALSE(parse("{}").rollout);
}

}  // namespace
}  // namespace pdctl::state::intent

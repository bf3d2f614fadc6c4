// `pdctl rollout` on a simulated 2P+2D cluster behind SMG (127.0.191.x; the rollback case 127.0.192.x)
// with a request stream through the router during every rollout: a good change rolls through with no
// failed request and leaves nothing to diff; a change that makes decode 30 % slower is stopped at its
// canary and rolled back; a decode-only page-size change is refused before anything is touched; a KV
// path broken above 20 MB fails the canary's soak; a paused rollout resumes or aborts; rollback returns
// to a past run's config; a P:D change (2P+2D -> 3P+1D, 127.0.196.x) moves a group and rolls back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "generate_stream.hpp"
#include "junit_schema.hpp"
#include "pdctl_harness.hpp"
#include "text_edit.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class RolloutTest : public ::testing::Test {
  protected:
    explicit RolloutTest(const std::string& name = "rollout", int block = 191) : cluster_(name, block) {}

    void SetUp() override {
        state_home_ =
            std::filesystem::temp_directory_path() / ("pdctl-it-rollout-home-" + std::to_string(::getpid()));
        std::filesystem::remove_all(state_home_);
        ::setenv("XDG_STATE_HOME", state_home_.c_str(), 1);
        auto text = read_text(cluster_.config());
        two_groups_each(text, "smg");
        write_text(cluster_.config(), text);
        // Tokens that take time, so that a decode's speed shows in its inter-token latency.
        original_decode_ = read_text(decode_env()) + "PDSIM_TOKEN_MS=8\n";
        write_text(decode_env(), original_decode_);
    }
    void TearDown() override {
        ::unsetenv("XDG_STATE_HOME");
        std::filesystem::remove_all(state_home_);
    }

    std::filesystem::path decode_env() const { return cluster_.config().parent_path() / "decode.env"; }
    void decode_extra(const std::string& text) { write_text(decode_env(), original_decode_ + text); }
    PdctlRun rollout(std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {"rollout", "--canary-window", "4s", "--drain-grace", "1s"};
        args.insert(args.end(), extra.begin(), extra.end());
        return cluster_.run(args, std::chrono::seconds(240));
    }

    SimCluster cluster_;
    std::filesystem::path state_home_;
    std::string original_decode_;
};

TEST_F(RolloutTest, AGoodChangeRollsThroughASlowOneIsRolledBackAndAMixedKvLayoutIsRefused) {
    const auto start = cluster_.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;

    // A good change: one flag, both decode groups.
    decode_extra(
        "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics "
        "--max-running-requests 64\"\n");
    const auto plan = cluster_.run({"rollout", "--dry-run"});
    ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
    EXPECT_THAT(plan.out, HasSubstr("1. replace decode (canary): add --max-running-requests 64"));
    EXPECT_THAT(plan.out, HasSubstr("2. replace decode-2"));
    EXPECT_THAT(plan.out,
                HasSubstr("on failure: every step already taken is undone, back to the config of run"));
    {
        GenerateStream stream(cluster_.address(5), 31000);
        const auto good = rollout();
        stream.stop();
        EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
        EXPECT_THAT(good.out, HasSubstr("canary decode: passed"));
        EXPECT_GT(stream.sent(), 20);
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                               << " failed:" << first_failures(stream.failures()) << good.out;
    }
    const auto after_good = cluster_.run({"diff"});
    EXPECT_EQ(after_good.exit_code, 0) << after_good.out << after_good.err;

    // A change that makes decode 30 % slower: the canary's own ITL shows it against decode-2's.
    decode_extra(
        "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics "
        "--max-running-requests 64\"\nPDSIM_SLOWDOWN=0.3\n");
    const auto junit = cluster_.config().parent_path() / "rollout.xml";
    {
        GenerateStream stream(cluster_.address(5), 31000);
        const auto slow = cluster_.run(
            {"--json", "rollout", "--canary-window", "4s", "--drain-grace", "1s", "--junit", junit.string()},
            std::chrono::seconds(240));
        stream.stop();
        EXPECT_EQ(slow.exit_code, 18) << slow.out << slow.err;
        const auto events = slow.events();
        ASSERT_FALSE(events.empty()) << slow.out << slow.err;
        const auto& doc = events.back();
        ASSERT_EQ(doc.value("event", ""), "rollout_result") << slow.out << slow.err;
        EXPECT_TRUE(doc["rolled_back"]);
        EXPECT_EQ(doc["rolled_back_groups"], json::array({"decode"}));
        EXPECT_EQ(doc["canary"]["latency"]["metric"], "ITL mean");
        EXPECT_TRUE(doc["canary"]["latency"]["regressed"]) << doc["canary"].dump(2);
        EXPECT_GT(doc["canary"]["latency"]["worse_by"].get<double>(), 0.15) << doc["canary"].dump(2);
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                               << " failed:" << first_failures(stream.failures());
    }
    // The CI report: valid JUnit, the canary's gate failed naming the metric, the rollback passed.
    EXPECT_EQ(schema_errors(junit), "");
    const auto report = read_text(junit);
    EXPECT_THAT(report, HasSubstr("classname=\"pdctl.rollout.decode\" name=\"replace decode: "));
    EXPECT_THAT(report, HasSubstr("<failure message=\"decode ITL mean "));
    EXPECT_THAT(report, HasSubstr("classname=\"pdctl.rollout.rollback\" name=\"rollback: decode\""));
    const auto pending = cluster_.run({"diff"});
    EXPECT_EQ(pending.exit_code, 1) << pending.out;
    EXPECT_THAT(pending.out, HasSubstr("env + PDSIM_SLOWDOWN=0.3"));
    EXPECT_EQ(cluster_.run({"status"}).exit_code, 0);

    // A page size on decode alone: refused, nothing touched.
    decode_extra(
        "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics "
        "--max-running-requests 64 --page-size 64\"\n");
    const auto before = running_unit_pids(cluster_);
    const auto refused_report = cluster_.config().parent_path() / "refused.xml";
    const auto refused = rollout({"--junit", refused_report.string()});
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("prefill and decode speaking different KV layouts: --page-size"));
    EXPECT_EQ(schema_errors(refused_report), "");
    EXPECT_THAT(read_text(refused_report),
                HasSubstr("<failure message=\"the change would leave prefill and decode"));
    EXPECT_EQ(running_unit_pids(cluster_), before) << "a refused rollout touched something";
}

class RolloutBackTest : public RolloutTest {
  protected:
    RolloutBackTest() : RolloutTest("rollback", 192) {}
};

TEST_F(RolloutBackTest, BrokenKvTransfersFailTheCanaryAPauseResumesOrAbortsAndRollbackReturnsToTheFirstRun) {
    const auto start = cluster_.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto first_run =
        json::parse(cluster_.run({"--json", "history"}).out)["runs"][0]["run"].get<std::string>();

    // Transfers above 20 MB fail on the new decode: the rollout's 512-token prompts carry about 36 MB.
    decode_extra("PDSIM_KV_FAIL_ABOVE_MB=20\n");
    const auto broken = rollout();
    EXPECT_EQ(broken.exit_code, 18) << broken.out << broken.err;
    EXPECT_THAT(broken.out, HasSubstr("canary decode: FAILED"));
    EXPECT_THAT(broken.out, HasSubstr("rolled back: decode"));
    EXPECT_EQ(cluster_.run({"status"}).exit_code, 0);

    // A good change rolls through; rollback then brings back the first run's config, through the router.
    decode_extra(
        "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics "
        "--max-running-requests 48\"\n");
    const auto good = rollout();
    ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
    // Paused after the canary: another rollout is refused, abort puts the canary back, and a resume of
    // the same change (paused again) replaces the rest.
    decode_extra(
        "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics "
        "--max-running-requests 40\"\n");
    const auto paused = rollout({"--pause-after-canary"});
    ASSERT_EQ(paused.exit_code, 0) << paused.out << paused.err;
    EXPECT_THAT(paused.out, HasSubstr("paused after canary decode"));
    const auto refused = rollout();
    EXPECT_EQ(refused.exit_code, 2) << refused.out;
    EXPECT_THAT(refused.err, HasSubstr("a rollout is paused after its canary decode"));
    const auto aborted = cluster_.run({"rollout", "abort", "--drain-grace", "1s"}, std::chrono::seconds(240));
    ASSERT_EQ(aborted.exit_code, 0) << aborted.out << aborted.err;
    EXPECT_THAT(cluster_.run({"rollout", "resume"}).err, HasSubstr("no rollout is paused"));
    ASSERT_EQ(rollout({"--pause-after-canary"}).exit_code, 0);
    const auto resumed =
        cluster_.run({"rollout", "resume", "--drain-grace", "1s"}, std::chrono::seconds(240));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
    EXPECT_THAT(resumed.out, HasSubstr("decode-2 replaced with the config"));
    EXPECT_EQ(cluster_.run({"diff"}).exit_code, 0);

    // By default rollback goes to the newest run that ended well with another config: the 48 one.
    const auto planned = cluster_.run({"rollback", "--dry-run"});
    ASSERT_EQ(planned.exit_code, 0) << planned.out << planned.err;
    EXPECT_THAT(planned.out, HasSubstr("1. replace decode (canary): --max-running-requests 40 -> 48"));
    {
        GenerateStream stream(cluster_.address(5), 31000);
        const auto back =
            cluster_.run({"rollback", first_run, "--canary-window", "4s", "--drain-grace", "1s"},
                         std::chrono::seconds(240));
        stream.stop();
        EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
        EXPECT_GT(stream.sent(), 20);
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                               << " failed:" << first_failures(stream.failures());
    }
    // What runs is the first run's config again: restored, it has nothing to diff.
    const auto restored_dir = cluster_.config().parent_path() / "first";
    ASSERT_EQ(cluster_.run({"config", "restore", first_run, "-o", restored_dir.string()}).exit_code, 0);
    const auto same = cluster_.run_without_config({"-c", (restored_dir / "pdctl.yaml").string(), "diff"});
    EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
    const auto history = json::parse(cluster_.run({"--json", "history"}).out);
    EXPECT_EQ(history["runs"][0]["verb"], "rollback");
}

class RolloutPdTest : public RolloutTest {
  protected:
    RolloutPdTest() : RolloutTest("rolloutpd", 196) {}
};

// 2P+2D -> 3P+1D: decode-2 (n7 n8) becomes prefill-3 on the same nodes and the same URL, through SMG's
// worker API, with requests flowing; then rollback to 2P+2D the same way.
TEST_F(RolloutPdTest, APdChangeMovesAGroupThroughTheRouterAndRollsBack) {
    const auto start = cluster_.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto two_by_two = read_text(cluster_.config());
    auto three_by_one = two_by_two;
    replace_all(three_by_one, "groups: [[n1, n2], [n3, n4]]", "groups: [[n1, n2], [n3, n4], [n7, n8]]");
    replace_all(three_by_one, "groups: [[n5, n6], [n7, n8]]", "groups: [[n5, n6]]");
    write_text(cluster_.config(), three_by_one);

    const auto pending = cluster_.run({"diff"});
    EXPECT_EQ(pending.exit_code, 1) << pending.out << pending.err;
    EXPECT_THAT(pending.out, HasSubstr("role changed decode-2 (decode) -> prefill-3 (prefill) on n7 n8"));
    EXPECT_THAT(pending.out, HasSubstr("workers: does not list prefill-3"));
    const auto plan = cluster_.run({"rollout", "--dry-run"});
    ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
    EXPECT_THAT(plan.out,
                HasSubstr("1. move prefill-3 (canary): decode-2 (decode) -> prefill-3 (prefill) on n7 n8"));
    {
        GenerateStream stream(cluster_.address(5), 31000);
        const auto moved = rollout();
        stream.stop();
        EXPECT_EQ(moved.exit_code, 0) << moved.out << moved.err;
        EXPECT_THAT(moved.out, HasSubstr("canary prefill-3: passed"));
        EXPECT_GT(stream.sent(), 20);
        EXPECT_TRUE(stream.failures().empty())
            << stream.failures().size() << " of " << stream.sent()
            << " failed:" << first_failures(stream.failures()) << moved.out;
    }
    const auto done = cluster_.run({"diff"});
    EXPECT_EQ(done.exit_code, 0) << done.out << done.err;
    const auto status = cluster_.run({"--json", "status"});
    EXPECT_EQ(status.exit_code, 0) << status.out << status.err;

    // Back to 2P+2D: the previous run's config, the same way round.
    {
        GenerateStream stream(cluster_.address(5), 31000);
        const auto back = cluster_.run({"rollback", "--canary-window", "4s", "--drain-grace", "1s"},
                                       std::chrono::seconds(240));
        stream.stop();
        EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
        EXPECT_THAT(back.out, HasSubstr("canary decode-2: passed"));
        EXPECT_GT(stream.sent(), 20);
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                               << " failed:" << first_failures(stream.failures()) << back.out;
    }
    write_text(cluster_.config(), two_by_two);
    const auto restored = cluster_.run({"diff"});
    EXPECT_EQ(restored.exit_code, 0) << restored.out << restored.err;
}

}  // namespace
}  // namespace pdctl::testing

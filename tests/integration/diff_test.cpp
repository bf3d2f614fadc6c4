// `pdctl diff` and the kept configs (`config show|restore`, `history`) with the real pdctl on a
// simulated cluster (127.0.190.x): a start keeps its config; an edited config shows as per-group
// differences, secrets as changed only; the restored config of the run is what runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class DiffTest : public ::testing::Test {
  protected:
    DiffTest() : cluster_("diff", 190) {}

    void SetUp() override {
        state_home_ =
            std::filesystem::temp_directory_path() / ("pdctl-it-diff-home-" + std::to_string(::getpid()));
        std::filesystem::remove_all(state_home_);
        ::setenv("XDG_STATE_HOME", state_home_.c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("XDG_STATE_HOME");
        std::filesystem::remove_all(state_home_);
    }

    // decode.env with its EXTRA_ARGS replaced by `extra_args` and HF_TOKEN set to `token`.
    void decode_env(const std::string& extra_args, const std::string& token) {
        std::string text = read_text(cluster_.config().parent_path() / "decode.env");
        const auto at = text.find("EXTRA_ARGS=");
        text.erase(at, text.find('\n', at) + 1 - at);
        const auto token_at = text.find("export HF_TOKEN=");
        if (token_at != std::string::npos) text.erase(token_at, text.find('\n', token_at) + 1 - token_at);
        write_text(cluster_.config().parent_path() / "decode.env",
                   text + "EXTRA_ARGS=\"" + extra_args + "\"\nexport HF_TOKEN=" + token + "\n");
    }

    static const json* group(const json& diff, const std::string& name) {
        for (const auto& item : diff["groups"])
            if (item["group"] == name) return &item;
        return nullptr;
    }

    SimCluster cluster_;
    std::filesystem::path state_home_;
    const std::string first_secret_ = "hf_DiffFirstSecret_4411";
    const std::string second_secret_ = "hf_DiffSecondSecret_8822";
};

TEST_F(DiffTest, AnEditedConfigShowsPerGroupAndTheRestoredConfigIsWhatRuns) {
    decode_env("--trust-remote-code --mem-fraction-static 0.85 --enable-metrics", first_secret_);
    const auto start = cluster_.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;

    const auto same = cluster_.run({"diff"});
    EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
    EXPECT_THAT(same.out, HasSubstr("nothing differs"));

    // The start kept its config and its record names it.
    const auto history = json::parse(cluster_.run({"--json", "history"}).out);
    ASSERT_FALSE(history["runs"].empty());
    const auto& newest = history["runs"][0];
    EXPECT_EQ(newest["verb"], "start");
    ASSERT_TRUE(newest["config_id"].is_string()) << newest.dump();
    EXPECT_EQ(newest["config_id"].get<std::string>().size(), 64U);
    const std::string run = newest["run"];

    const auto shown = cluster_.run({"config", "show", run});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_THAT(shown.out, HasSubstr("--mem-fraction-static 0.85"));
    EXPECT_THAT(shown.out, HasSubstr("HF_TOKEN=[REDACTED]"));
    EXPECT_THAT(shown.out + shown.err, Not(HasSubstr(first_secret_)));

    // One flag changed, one added, one removed, and the secret changed: decode differs, nothing else.
    decode_env("--mem-fraction-static 0.80 --enable-metrics --page-size 64", second_secret_);
    const auto changed = cluster_.run({"--json", "diff"});
    EXPECT_EQ(changed.exit_code, 1) << changed.out << changed.err;
    EXPECT_THAT(changed.out + changed.err, Not(HasSubstr(first_secret_)));
    EXPECT_THAT(changed.out + changed.err, Not(HasSubstr(second_secret_)));
    const auto doc = json::parse(changed.out);
    EXPECT_TRUE(doc["differs"]);
    const auto* decode = group(doc, "decode");
    ASSERT_NE(decode, nullptr) << doc.dump(2);
    EXPECT_EQ((*decode)["change"], "changed");
    EXPECT_EQ((*decode)["running_from"].get<std::string>().rfind(run, 0), 0U) << (*decode)["running_from"];
    std::map<std::string, json> flags;
    for (const auto& flag : (*decode)["flags"]) flags[flag["flag"]] = flag;
    EXPECT_EQ(flags["--mem-fraction-static"]["before"], "0.85");
    EXPECT_EQ(flags["--mem-fraction-static"]["after"], "0.80");
    EXPECT_TRUE(flags["--page-size"]["before"].is_null());
    EXPECT_EQ(flags["--page-size"]["after"], "64");
    EXPECT_TRUE(flags["--trust-remote-code"]["after"].is_null());
    bool token_changed = false;
    for (const auto& env : (*decode)["env"])
        if (env["key"] == "HF_TOKEN") token_changed = env["secret"] && env["after"] == "[secret]";
    EXPECT_TRUE(token_changed) << (*decode)["env"].dump();
    for (const char* other : {"mooncake-master", "prefill", "router"}) {
        const auto* item = group(doc, other);
        ASSERT_NE(item, nullptr) << other;
        EXPECT_EQ((*item)["change"], "same") << other;
    }
    const auto text = cluster_.run({"diff"});
    EXPECT_EQ(text.exit_code, 1);
    EXPECT_THAT(text.out, HasSubstr("~ --mem-fraction-static 0.85 -> 0.80"));
    EXPECT_THAT(text.out, HasSubstr("env HF_TOKEN (secret) changed"));
    EXPECT_THAT(text.out, HasSubstr("1 of 4 groups differ"));

    // The run's config, written back, is what runs.
    const auto restored_dir = cluster_.config().parent_path() / "restored";
    const auto restored = cluster_.run({"--json", "config", "restore", run, "-o", restored_dir.string()});
    ASSERT_EQ(restored.exit_code, 0) << restored.err;
    const std::string entry = json::parse(restored.out)["restored"];
    EXPECT_THAT(read_text(restored_dir / "decode.env"), HasSubstr(first_secret_));
    const auto back = cluster_.run_without_config({"-c", entry, "diff"});
    EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
    // A second restore into the same folder overwrites nothing.
    const auto again = cluster_.run({"config", "restore", run, "-o", restored_dir.string()});
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_THAT(again.err, HasSubstr("exists"));
}

}  // namespace
}  // namespace pdctl::testing

// Which run `pdctl bench --vs` compares with (docs/bench.md, "Which baseline"): `--vs last` takes the
// newest PASSING run of the same workload, a regressed run is never a baseline, and a baseline of
// another workload (`--vs RUN`, `--baseline FILE`) is refused before any load, naming what differs.
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

TEST(BenchTiming, VsLastTakesTheNewestPassingRunOfTheSameWorkloadAndAnotherWorkloadIsRefused) {
    SimCluster cluster("benchgate", 170);
    cluster.append("prefill.env", "PDSIM_PREFILL_TOKENS_PER_S=200\n");
    cluster.append("decode.env", "PDSIM_TOKEN_MS=5\nPDSIM_KV_GBPS=10\n");
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const std::vector<std::string> bench = {"--json", "bench",      "--input", "2048",     "--output",
                                            "48",     "--requests", "6",       "--warmup", "1"};
    const auto first = cluster.run(bench);
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    const std::string passing = json::parse(first.out)["run"];
    const auto file = cluster.config().parent_path() / "good.json";
    write_text(file, first.out);

    // Another input length: another workload, refused before any load, naming the rows.
    const std::vector<std::string> other = {"bench", "--input", "1024", "--output", "48", "--requests", "6"};
    auto by_id = other;
    by_id.insert(by_id.end(), {"--vs", passing});
    const auto refused = cluster.run(by_id);
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("not the same workload as this run"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("row 2048/48: in the baseline, not now"), std::string::npos) << refused.err;
    auto by_file = other;
    by_file.insert(by_file.end(), {"--baseline", file.string()});
    const auto refused_file = cluster.run(by_file);
    EXPECT_EQ(refused_file.exit_code, 2) << refused_file.err;
    EXPECT_NE(refused_file.err.find("row 1024/48: not in the baseline"), std::string::npos)
        << refused_file.err;
    auto last_other = other;
    last_other.insert(last_other.end(), {"--vs", "last"});
    const auto none = cluster.run(last_other);
    EXPECT_EQ(none.exit_code, 2) << none.err;
    EXPECT_NE(none.err.find("no passing bench run of scenario custom with these rows"), std::string::npos)
        << none.err;
    EXPECT_EQ(none.out.find("journaled as run"), std::string::npos)
        << "refused before any load: " << none.out;

    // Half as fast again: the run against the passing one regresses (and is journaled with exit 16) ...
    ASSERT_EQ(cluster.run({"stop"}).exit_code, 0);
    cluster.append("prefill.env", "PDSIM_SLOWDOWN=0.5\n");
    cluster.append("decode.env", "PDSIM_SLOWDOWN=0.5\n");
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    auto last = bench;
    last.insert(last.end(), {"--vs", "last"});
    const auto slow = cluster.run(last);
    ASSERT_EQ(slow.exit_code, 16) << slow.out << slow.err;
    const json slow_report = json::parse(slow.out);
    EXPECT_NE(slow_report["comparison"]["against"].get<std::string>().find(passing), std::string::npos);
    // ... every request-level change with its test, p-value and interval; throughput of one run a side
    // reported, not gated.
    for (const auto& change : slow_report["comparison"]["changes"]) {
        if (change["metric"] == "output tok/s") {
            EXPECT_EQ(change["test"], "not-gated") << change.dump();
            EXPECT_FALSE(change["regressed"].get<bool>());
            continue;
        }
        EXPECT_EQ(change["test"], "mann-whitney-u") << change.dump();
        EXPECT_TRUE(change["regressed"].get<bool>()) << change.dump();
        EXPECT_LT(change["p_value"].get<double>(), 0.01) << change.dump();
        EXPECT_GT(change["worse_by_interval"][0].get<double>(), 0.10) << change.dump();
    }
    // ... and is no baseline: `--vs last` still takes the passing run.
    const auto again = cluster.run(last);
    EXPECT_EQ(again.exit_code, 16) << again.out << again.err;
    EXPECT_NE(json::parse(again.out)["comparison"]["against"].get<std::string>().find(passing),
              std::string::npos)
        << again.out;
}

}  // namespace
}  // namespace pdctl::testing

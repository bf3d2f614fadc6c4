// pdctl bench --sweep on a 12-node simulated cluster: 1P:3D, 2P:2D and 3P:1D, groups of 3 nodes × 8
// GPUs, each config started in turn (converging: what did not change keeps running) and benched; the
// ratio pdsim's capacity model favours ranks first (docs/bench.md, "Sweeps").
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// Two blocks: the refusal test asserts nothing runs on its addresses while the other sweeps on its own.
constexpr int kSweepBlock = 109;
constexpr int kRefusalBlock = 110;
// The capacities configured below, and the bench's one row.
struct Model {
    static constexpr double kPrefillTokensPerSPerGpu = 100;
    static constexpr int kTpSize = 24;  // a group: 3 nodes × 8 GPUs
    static constexpr double kTokenMs = 10;
    static constexpr int kDecodeSeats = 2;  // --max-running-requests of a decode group
    static constexpr int kInput = 600;
    static constexpr int kOutput = 50;
};

// Requests per second a config can serve, says the model: each prefill group computes one prompt at a
// time; each decode group decodes kDecodeSeats requests at once, (output - 1) steps each.
double predicted_requests_per_s(int prefill_groups, int decode_groups) {
    const double prefill = prefill_groups * Model::kPrefillTokensPerSPerGpu * Model::kTpSize / Model::kInput;
    const double decode =
        decode_groups * Model::kDecodeSeats / ((Model::kOutput - 1) * Model::kTokenMs / 1e3);
    return std::min(prefill, decode);
}

class SweepConfigs : public ::testing::Test {
  protected:
    SweepConfigs(const std::string& name, int block) : cluster(name, block) {}
    void SetUp() override {
        std::string base = read_text(cluster.config());
        std::string nodes;
        for (int i = 1; i <= 12; ++i)
            nodes += "  - {name: n" + std::to_string(i) + ", address: " + cluster.address(i) + "}\n";
        const auto first = base.find("  - {name: n1,");
        const auto last = base.find('\n', base.find("  - {name: n8,")) + 1;
        base.replace(first, last - first, nodes);
        replace_once(base, "tp_size: 32\n    ep_size: 32", "tp_size: 24\n    ep_size: 24");
        replace_once(base, "tp_size: 32\n    ep_size: 32", "tp_size: 24\n    ep_size: 24");
        const std::vector<std::string> groups = {"[n1, n2, n3]", "[n4, n5, n6]", "[n7, n8, n9]",
                                                 "[n10, n11, n12]"};
        for (int prefill = 1; prefill <= 3; ++prefill) {
            std::string text = base;
            const auto list = [&](int from, int to) {
                std::string out = "groups: [";
                for (int g = from; g < to; ++g) out += (g > from ? ", " : "") + groups[g];
                return out + "]";
            };
            replace_once(text, "nodes: [n1, n2, n3, n4]", list(0, prefill));
            replace_once(text, "nodes: [n5, n6, n7, n8]", list(prefill, 4));
            const auto path =
                directory() / (std::to_string(prefill) + "p" + std::to_string(4 - prefill) + "d.yaml");
            write_text(path, text);
            configs.push_back(path.string());
        }
        cluster.append("prefill.env", "PDSIM_PREFILL_TOKENS_PER_S=100\n");
        cluster.append("decode.env",
                       "PDSIM_TOKEN_MS=10\nEXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 "
                       "--enable-metrics --max-running-requests 2\"\n");
        write_text(directory() / "ratio.yaml",
                   "name: ratio\nrows:\n  - {name: ratio, input: 600, output: 50}\nconcurrency: [16]\n"
                   "requests: 48\nwarmup: 2\n");
    }
    void TearDown() override {
        // Any of the configs stops every unit the deployment runs.
        if (!configs.empty()) cluster.run_without_config({"-c", configs.back(), "stop"});
    }

    std::filesystem::path directory() const { return cluster.config().parent_path(); }
    static void replace_once(std::string& text, const std::string& from, const std::string& to) {
        const auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << "no `" << from << "`";
        text.replace(at, from.size(), to);
    }

    SimCluster cluster;
    std::vector<std::string> configs;
};

class BenchSweep : public SweepConfigs {
  protected:
    BenchSweep() : SweepConfigs("sweep", kSweepBlock) {}
};

class BenchSweepRefusal : public SweepConfigs {
  protected:
    BenchSweepRefusal() : SweepConfigs("sweepno", kRefusalBlock) {}
};

TEST_F(BenchSweep, RanksFirstTheRatioTheCapacityModelFavoursAndMovesOnlyWhatChanged) {
    // What the model favours, computed: the test asserts the sweep finds it.
    std::string favoured;
    double best = 0;
    for (int prefill = 1; prefill <= 3; ++prefill)
        if (const double served = predicted_requests_per_s(prefill, 4 - prefill); served > best) {
            best = served;
            favoured = std::to_string(prefill) + "P:" + std::to_string(4 - prefill) + "D";
        }
    ASSERT_EQ(favoured, "2P:2D");  // 8 requests/s against 4 and 4.08: a margin noise cannot close

    const auto start = cluster.run_without_config({"-c", configs[0], "start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto before = running_unit_pids(cluster, configs[0]);
    const std::string master = cluster.unit("mooncake-master", 0);
    ASSERT_EQ(before.count(master), 1u);

    const auto svg = directory() / "sweep.svg";
    const auto sweep =
        cluster.run_without_config({"--json", "bench", "--sweep", configs[0], configs[1], configs[2],
                                    "--file", (directory() / "ratio.yaml").string(), "--svg", svg.string()},
                                   std::chrono::seconds(400));
    ASSERT_EQ(sweep.exit_code, 0) << sweep.out << sweep.err;
    const json document = json::parse(sweep.out);
    ASSERT_EQ(document["ranking"].size(), 3u) << document.dump();
    EXPECT_EQ(document["ranking"][0]["pd"], favoured) << document["ranking"].dump(1);
    EXPECT_TRUE(document["ranking"][0]["no_score"].is_null());
    for (const auto& standing : document["ranking"]) {
        EXPECT_EQ(standing["gpus"], 96);
        ASSERT_EQ(standing["points"].size(), 1u);
        EXPECT_EQ(standing["points"][0]["ok"], 48);
        EXPECT_EQ(standing["points"][0]["failed"], 0);
    }
    // Each config was started and benched, and each bench run journaled under its own id.
    std::set<std::string> runs;
    for (const auto& entry : document["configs"]) {
        EXPECT_EQ(entry["start_exit_code"], 0);
        EXPECT_EQ(entry["bench_exit_code"], 0);
        runs.insert(entry["run"].get<std::string>());
    }
    EXPECT_EQ(runs.size(), 3u);
    const auto history = cluster.run_without_config({"-c", configs[2], "--json", "history"});
    std::set<std::string> journaled;
    const json past = json::parse(history.out);
    for (const auto& run : past["runs"])
        if (run["verb"] == "bench") journaled.insert(run["run"].get<std::string>());
    EXPECT_EQ(journaled, runs) << history.out;
    EXPECT_NE(read_text(svg).find("1. " + configs[1] + " 2P:2D"), std::string::npos);

    // Converging starts: the master and the first prefill group, the same in every config, never moved.
    const auto after = running_unit_pids(cluster, configs[2]);
    for (const auto& unit : {master, cluster.unit("prefill", 0), cluster.unit("prefill", 2)}) {
        ASSERT_EQ(after.count(unit), 1u) << unit;
        EXPECT_EQ(after.at(unit), before.at(unit)) << unit << " was restarted";
    }
    EXPECT_EQ(after.count(cluster.unit("prefill-3", 0)), 1u) << "3P:1D runs at the end";
}

TEST_F(BenchSweepRefusal, RefusesBeforeAnyStartWhatCannotBeASweep) {
    const auto one = cluster.run_without_config({"bench", "--sweep", configs[0]});
    EXPECT_EQ(one.exit_code, 2) << one.out << one.err;

    const auto with_config =
        cluster.run_without_config({"-c", configs[0], "bench", "--sweep", configs[0], configs[1]});
    EXPECT_EQ(with_config.exit_code, 2);
    EXPECT_NE(with_config.err.find("--sweep names the configs itself"), std::string::npos) << with_config.err;

    std::string other = read_text(configs[1]);
    replace_once(other, "cluster: sweepno", "cluster: elsewhere");
    write_text(directory() / "other.yaml", other);
    const auto two =
        cluster.run_without_config({"bench", "--sweep", configs[0], (directory() / "other.yaml").string()});
    EXPECT_EQ(two.exit_code, 2);
    EXPECT_NE(two.err.find("are two deployments"), std::string::npos) << two.err;

    const auto soak =
        cluster.run_without_config({"bench", "--sweep", configs[0], configs[1], "--soak", "10s"});
    EXPECT_EQ(soak.exit_code, 2);
    EXPECT_NE(soak.err.find("do not apply"), std::string::npos) << soak.err;

    std::string broken = read_text(configs[2]);
    replace_once(broken, "tp_size: 24", "tp_size: [24]");
    write_text(configs[2], broken);
    const auto bad = cluster.run_without_config({"bench", "--sweep", configs[0], configs[2]});
    EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
    EXPECT_NE(bad.err.find(configs[2] + ":"), std::string::npos)
        << "file:line of the broken one: " << bad.err;
    EXPECT_TRUE(cluster.live_pdsim_processes().empty()) << "nothing started";
}

}  // namespace
}  // namespace pdctl::testing

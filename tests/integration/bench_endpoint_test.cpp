// pdctl bench --base-url: load on an SGLang-compatible endpoint pdctl did not start (the old deployment
// before a cut-over), journaled with the cluster's runs so `--vs` compares the new one with it.
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

TEST(BenchEndpoint, ABaseUrlRunIsJournaledAndTheClustersOwnRunComparesWithIt) {
    SimCluster cluster("benchurl", 188);
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    // The "old deployment": here the same router, named by its address instead of by the config.
    const std::string base = "http://" + cluster.address(5) + ":31000";
    const std::vector<std::string> row = {"--input",    "64", "--output", "4",
                                          "--requests", "6",  "--warmup", "1"};

    std::vector<std::string> old_args = {"--json", "bench", "--base-url", base, "--flush-cache"};
    old_args.insert(old_args.end(), row.begin(), row.end());
    const auto old_run = cluster.run(old_args, std::chrono::seconds(60));
    ASSERT_EQ(old_run.exit_code, 0) << old_run.out << old_run.err;
    const json old_doc = json::parse(old_run.out);
    EXPECT_EQ(old_doc["base_url"], base);
    EXPECT_EQ(old_doc["url"], base + "/generate");
    EXPECT_TRUE(old_doc["kv"].empty()) << "pdctl knows no group of an endpoint it did not start";
    EXPECT_TRUE(old_doc["notes"].empty()) << old_doc["notes"].dump();  // the router's /flush_cache answered
    EXPECT_EQ(old_doc["rows"][0]["levels"][0]["ok"], 6);

    std::vector<std::string> new_args = {"--json", "bench", "--vs", old_doc["run"].get<std::string>()};
    new_args.insert(new_args.end(), row.begin(), row.end());
    const auto new_run = cluster.run(new_args, std::chrono::seconds(60));
    EXPECT_NE(new_run.exit_code, 2) << new_run.out << new_run.err;  // the same shape: compared, not refused
    const json new_doc = json::parse(new_run.out);
    EXPECT_TRUE(new_doc["base_url"].is_null());
    EXPECT_NE(new_doc["comparison"]["against"].get<std::string>().find(old_doc["run"].get<std::string>()),
              std::string::npos)
        << new_doc["comparison"].dump();

    const auto history = cluster.run({"--json", "history", "--limit", "2"});
    const json runs = json::parse(history.out)["runs"];
    ASSERT_EQ(runs.size(), 2u) << history.out;
    EXPECT_EQ(runs[1]["run"], old_doc["run"]);

    const auto both = cluster.run({"bench", "--base-url", base, "--router", "router"});
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_NE(both.err.find("--base-url and --router both say where the load goes"), std::string::npos)
        << both.err;
    const auto not_http = cluster.run({"bench", "--base-url", "ftp://old:21"});
    EXPECT_EQ(not_http.exit_code, 2);
    EXPECT_NE(not_http.err.find("--base-url ftp://old:21: an http://HOST:PORT address"), std::string::npos)
        << not_http.err;
}

}  // namespace
}  // namespace pdctl::testing

// status --metrics on the simulated cluster: under a bounded stream of requests through the router,
// decode's rank 0 reports running requests and throughput by SGLang's own metric names; once the
// stream ends the running count falls back to 0. Without --enable-metrics the reason is named.
#include <gtest/gtest.h>

#include "generate_stream.hpp"
#include "pdctl_harness.hpp"
#include "pdctl_process.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// The metrics of `role` in `status --metrics --json --role ROLE`, or null.
json role_metrics(const SimCluster& cluster, const std::string& role) {
    const auto status = cluster.run({"--json", "status", "--metrics", "--role", role});
    const auto doc = json::parse(status.out, nullptr, false);
    if (!doc.is_object()) return nullptr;
    for (const auto& entry : doc["roles"])
        if (entry["role"] == role) return entry["metrics"];
    return nullptr;
}

double value_of(const json& metrics, const std::string& name) {
    if (!metrics.is_object() || !metrics["values"].contains(name)) return -1;
    return metrics["values"][name].get<double>();
}

TEST(StatusMetrics, DecodeShowsRunningRequestsUnderLoadAndNoneAfter) {
    SimCluster cluster("metrics", 87);
    cluster.append("decode.env", "PDSIM_TOKEN_MS=25\n");  // 4 tokens: 100 ms per request
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;

    json decode;
    {
        GenerateStream stream(cluster.address(5), 31000);
        EXPECT_TRUE(eventually(
            [&] {
                decode = role_metrics(cluster, "decode");
                return value_of(decode, "sglang:num_running_reqs") > 0;
            },
            std::chrono::seconds(20)))
            << decode.dump();
        EXPECT_GT(value_of(decode, "sglang:gen_throughput"), 0) << decode.dump();
        stream.stop();
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().front();
    }
    EXPECT_EQ(decode["url"], "http://" + cluster.address(5) + ":30000/metrics");
    EXPECT_TRUE(
        eventually([&] { return value_of(role_metrics(cluster, "decode"), "sglang:num_running_reqs") == 0; },
                   std::chrono::seconds(20)));
    const auto prefill = role_metrics(cluster, "prefill");
    EXPECT_GT(value_of(prefill, "sglang:num_requests_total"), 0) << prefill.dump();
    EXPECT_EQ(value_of(role_metrics(cluster, "mooncake-master"), "master_key_count"), 0);
    EXPECT_TRUE(role_metrics(cluster, "router").is_null()) << "routers are not scraped";

    const auto text = cluster.run({"status", "--metrics", "--role", "decode"});
    EXPECT_EQ(text.exit_code, 0) << text.out;
    EXPECT_NE(text.out.find("METRICS (rank 0's /metrics"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("decode           running 0 · queued 0 · KV 0.0% · "), std::string::npos)
        << text.out;
}

TEST(StatusMetrics, AServerWithoutEnableMetricsSaysWhatToAdd) {
    SimCluster cluster("nometrics", 88);
    auto env = read_text(cluster.config().parent_path() / "decode.env");
    replace_all(env, " --enable-metrics", "");
    write_text(cluster.config().parent_path() / "decode.env", env);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto decode = role_metrics(cluster, "decode");
    EXPECT_EQ(decode["error"],
              "HTTP 404: SGLang serves /metrics only with --enable-metrics (add it to the role's args)")
        << decode.dump();
}

}  // namespace
}  // namespace pdctl::testing

// pdsim as `mooncake_master`: the metrics/health server, the RPC port, gflags-style flags.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim_fixtures.hpp"
#include "sim_http.hpp"
#include "sim_process.hpp"

namespace pdsim_test {
namespace {

using ::testing::HasSubstr;

TEST(SimMaster, ServesHealthMetricsAndTheRpcPort) {
    const std::string host = "127.0.50.40";
    SimProcess master(
        "master",
        {"mooncake_master", "--port", "47200", "--rpc_address", host, "--metrics_host", host,
         "--metrics_port=47201", "--enable_http_metadata_server=true", "--http_metadata_server_host", host,
         "--http_metadata_server_port", "47202", "--eviction_high_watermark_ratio=0.9"},
        fast_env({{"PDSIM_MASTER_HEALTH", "plain"}}));  // an older master's plain "OK"
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47201, "/health") == 200; }, kStartDeadline));
    EXPECT_EQ(http_get(host, 47201, "/health")->body, "OK");
    EXPECT_THAT(http_get(host, 47201, "/metrics")->body, HasSubstr("master_key_count"));
    EXPECT_EQ(status_of(host, 47201, "/metrics/summary"), 200);
    EXPECT_EQ(status_of(host, 47201, "/get_all_segments"), 200);
    EXPECT_TRUE(port_open(host, 47200));
    EXPECT_EQ(status_of(host, 47202, "/health"), 200);
    EXPECT_TRUE(master.wait_for_log(
        "Master service started on port 47200, max_threads=16, enable_metric_reporting=1, metrics_port=47201",
        kStartDeadline));

    master.signal(SIGTERM);
    EXPECT_EQ(master.wait_exit(1s), 0);
}

// A recent master (0.3.10.post2 on): 200 with JSON from the start, service_ready false until it serves.
TEST(SimMaster, JsonHealthSaysServiceReadyOnlyOnceServing) {
    const std::string host = "127.0.50.44";
    SimProcess master("master",
                      {"mooncake_master", "--rpc_port", "47220", "--rpc_address", host, "--metrics_host",
                       host, "--metrics_port", "47221"},
                      fast_env({{"PDSIM_MASTER_READY_MS", "800"}}));
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47221, "/health") == 200; }, kStartDeadline));
    const auto first = nlohmann::json::parse(http_get(host, 47221, "/health")->body);
    EXPECT_EQ(first["status"], "ok");
    EXPECT_EQ(first["service_ready"], false) << first.dump();
    EXPECT_EQ(first["ha_state"], "starting");
    EXPECT_TRUE(wait_until(
        [&] {
            const auto answer = http_get(host, 47221, "/health");
            return answer &&
                   nlohmann::json::parse(answer->body, nullptr, false).value("service_ready", false);
        },
        kStartDeadline));
    EXPECT_TRUE(port_open(host, 47220)) << "--rpc_port is the RPC port";
    master.signal(SIGTERM);
    EXPECT_EQ(master.wait_exit(1s), 0);
}

TEST(SimMaster, CrashAtInitExitsBeforeListening) {
    const std::string host = "127.0.50.41";
    SimProcess master("master",
                      {"mooncake_master", "-port=47210", "--rpc_address", host, "--metrics_host", host,
                       "--metrics_port", "47211"},
                      fast_env({{"PDSIM_CRASH_AT", "init"}}));
    EXPECT_EQ(master.wait_exit(5s), 1);
    EXPECT_TRUE(master.wait_for_log("pdsim injected crash at init", kLogDeadline));
    EXPECT_FALSE(port_open(host, 47211));
}

}  // namespace
}  // namespace pdsim_test

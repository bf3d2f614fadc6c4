#include "pdctl/health/gate_answers.hpp"

#include <gtest/gtest.h>

namespace pdctl::health {
namespace {

TEST(MasterHealth, APlainOkOrJsonWithoutTheFieldServes) {
    EXPECT_FALSE(master_not_ready("OK"));  // masters before 0.3.10.post2
    EXPECT_FALSE(master_not_ready(""));
    EXPECT_FALSE(master_not_ready(R"({"status":"ok"})"));
    EXPECT_FALSE(
        master_not_ready(R"({"status":"ok","role":"leader","ha_state":"serving","service_ready":true})"));
}

TEST(MasterHealth, ServiceReadyFalseHoldsTheGateAndSaysTheState) {
    EXPECT_EQ(
        master_not_ready(R"({"status":"ok","role":"leader","ha_state":"starting","service_ready":false})"),
        "service_ready: false (ha_state starting)");
    // Anything but true is not ready: a master that reports the field must say yes.
    EXPECT_EQ(master_not_ready(R"({"service_ready":null})"), "service_ready: null");
    EXPECT_EQ(master_not_ready(R"({"service_ready":"yes"})"), "service_ready: \"yes\"");
}

const std::vector<std::string> kExpected = {"http://10.0.0.1:30000", "http://10.0.0.5:30000"};

TEST(RouterWorkers, EveryExpectedWorkerListedAndHealthyPasses) {
    // SMG's shape (status) and the older gateway's (no status) both pass; a trailing slash is the same URL.
    EXPECT_FALSE(workers_not_ready(
        R"({"workers":[{"url":"http://10.0.0.1:30000","worker_type":"prefill","is_healthy":true,"status":"ready",
            "bootstrap_port":8998},{"url":"http://10.0.0.5:30000/","worker_type":"decode","is_healthy":true}],
            "total":2})",
        kExpected));
}

TEST(RouterWorkers, AMissingOrUnhealthyWorkerIsNamed) {
    EXPECT_EQ(
        workers_not_ready(
            R"({"workers":[{"url":"http://10.0.0.1:30000","worker_type":"prefill","is_healthy":true}]})",
            kExpected),
        "missing from /workers: http://10.0.0.5:30000");
    EXPECT_EQ(workers_not_ready(R"({"workers":[{"url":"http://10.0.0.1:30000","worker_type":"prefill",
                "is_healthy":false,"status":"pending"},{"url":"http://10.0.0.5:30000","is_healthy":true}]})",
                                kExpected),
              "not healthy: http://10.0.0.1:30000 (prefill, status pending)");
    EXPECT_EQ(workers_not_ready(R"({"workers":[{"url":"http://10.0.0.5:30000","worker_type":"decode"}]})",
                                kExpected),
              "missing from /workers: http://10.0.0.1:30000; not healthy: http://10.0.0.5:30000 (decode)");
}

TEST(RouterWorkers, AnythingButAWorkerListFails) {
    EXPECT_EQ(workers_not_ready("Not Found", kExpected), "the answer is not a worker list: Not Found");
    EXPECT_TRUE(workers_not_ready(R"({"workers":{}})", kExpected));
    EXPECT_TRUE(workers_not_ready(R"([1,2])", kExpected));
}

}  // namespace
}  // namespace pdctl::health

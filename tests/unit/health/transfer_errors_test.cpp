// Which answers and log lines name a failure of the KV path (the gate's fail-fast rule and the lines
// shown beside a failure), and what counts as the same failure for another request.
#include "pdctl/health/transfer_errors.hpp"

#include <gtest/gtest.h>

namespace pdctl::health {
namespace {

TEST(TransferErrors, TheMessagesOfSglangAndMooncakeNameTheKvPath) {
    for (
        const char* text : {
            "HTTP 500: Error fetching prefill parallel info from bootstrap 10.0.0.1:8998: Connection refused",
            "Decode transfer failed for request rank=0 bootstrap_room=42 with exception KVTransferError(...)",
            "KV transfer timed out (bootstrap_room=8812736451, bootstrap 10.0.0.1:8998)",
            "Request 7f3a timed out after 300.0s in KVPoll.Bootstrapping",
            "Failed to get kvcache from prefill instance, it might be dead",
            "Decode instance could be dead, remote mooncake session 10.0.0.5:16001 is not alive",
            "E1205 transfer_engine.cpp:412] Failed to send kv chunk",
        })
        EXPECT_TRUE(names_kv_path_failure(text)) << text;
}

TEST(TransferErrors, OtherFailuresDoNot) {
    for (const char* text : {"HTTP 503", "connection refused or unreachable",
                             "HTTP 500: CUDA out of memory. Tried to allocate 2.00 GiB",
                             "missing from /workers: http://10.0.0.5:30000", ""})
        EXPECT_FALSE(names_kv_path_failure(text)) << text;
}

TEST(TransferErrors, RequestIdsAsideTwoAnswersAreTheSame) {
    EXPECT_EQ(
        without_request_ids("KV transfer timed out (bootstrap_room=8812736451, bootstrap 10.0.0.1:8998)"),
        without_request_ids("KV transfer timed out (bootstrap_room=1290033, bootstrap 10.0.0.1:8998)"));
    EXPECT_EQ(without_request_ids("room=123456 port 8998 rank 0"), "room=# port 8998 rank 0");
    EXPECT_NE(without_request_ids("bootstrap 10.0.0.1:8998"), without_request_ids("bootstrap 10.0.0.2:8998"));
}

}  // namespace
}  // namespace pdctl::health

#include "pdctl/runtime/failure_hint.hpp"

#include <gtest/gtest.h>

namespace pdctl::runtime {
namespace {

TEST(FailureHint, FatalCauseOutranksANewerTcpFallbackWarning) {
    const std::vector<std::string> log = {
        "[2026-11-29 08:15:10 TP16] Mooncake memory registration failed",
        "I1129 08:15:11 transfer_engine_impl.cpp:120] Topology discovery complete. Found 0 HCAs.",
    };
    EXPECT_NE(hint_from_log(log).find("expandable_segments"), std::string::npos);
}

TEST(FailureHint, TcpFallbackAloneStillGetsItsHint) {
    EXPECT_NE(hint_from_log({"Topology discovery complete. Found 0 HCAs."}).find("/dev/infiniband"),
              std::string::npos);
}

TEST(FailureHint, UnknownFailureGetsNoHint) {
    EXPECT_EQ(hint_from_log({"Scheduler hit an exception: boom"}), "");
}

}  // namespace
}  // namespace pdctl::runtime

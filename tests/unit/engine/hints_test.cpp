#include <gtest/gtest.h>

#include "pdctl/engine/engine.hpp"

namespace pdctl::engine {
namespace {

TEST(Hints, FatalCauseOutranksANewerTcpFallbackWarning) {
    const std::vector<std::string> log = {
        "[2026-11-29 08:15:10 TP16] Mooncake memory registration failed",
        "I1129 08:15:11 transfer_engine_impl.cpp:120] Topology discovery complete. Found 0 HCAs.",
    };
    EXPECT_NE(hint_from_log(log).find("expandable_segments"), std::string::npos);
}

TEST(Hints, TcpFallbackAloneStillGetsItsHint) {
    EXPECT_NE(hint_from_log({"Topology discovery complete. Found 0 HCAs."}).find("/dev/infiniband"),
              std::string::npos);
}

TEST(Hints, UnknownFailureGetsNoHint) {
    EXPECT_EQ(hint_from_log({"Scheduler hit an exception: boom"}), "");
}

}  // namespace
}  // namespace pdctl::engine

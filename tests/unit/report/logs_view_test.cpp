#include "pdctl/report/logs_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

TEST(LogsView, EachLineOfSeveralUnitsSaysWhose) {
    EXPECT_EQ(log_line_prefix("n3", 2), "[n3 rank2] ");
    EXPECT_EQ(log_restarted_line("[n3 rank2] "),
              "[n3 rank2] --- the log starts again (the unit was restarted) ---");
    EXPECT_EQ(log_restarted_line(""), "--- the log starts again (the unit was restarted) ---");
}

TEST(LogsView, TroubleNamesTheNodeAndTheUnitAndItsEnd) {
    EXPECT_EQ(log_trouble_line("n3", "demo-prefill-2", "reading the log timed out"),
              "n3 (demo-prefill-2): reading the log timed out");
    EXPECT_EQ(log_trouble_line("n3", "demo-prefill-2", ""), "n3 (demo-prefill-2): reading its log again");
    EXPECT_EQ(log_unreachable_line("n3", "connection refused"), "n3: unreachable: connection refused");
}

}  // namespace
}  // namespace pdctl::report

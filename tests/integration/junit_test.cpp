// --junit on start, smoke and doctor, on the simulated cluster (block 99): every file validates against
// the JUnit schema (tests/junit/junit.xsd, with xmllint), has one case per stage launch and gate, check
// or rule, and a failed start's file names the node and the reason.
#include <gtest/gtest.h>

#include <cstdlib>

#include "junit_schema.hpp"
#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

std::size_t occurrences(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

TEST(Junit, StartSmokeAndDoctorWriteValidReportsWithACasePerStageGateCheckAndRule) {
    SimCluster cluster("junit", 99);
    const auto dir = cluster.config().parent_path();

    const auto start = cluster.run({"start", "--junit", (dir / "start.xml").string()});
    ASSERT_EQ(start.exit_code, 0) << start.err;
    const auto started = read_text(dir / "start.xml");
    EXPECT_EQ(schema_errors(dir / "start.xml"), "") << started;
    EXPECT_EQ(occurrences(started, "<testcase "), 8u) << "launch and gate of 4 stages:\n" << started;
    EXPECT_NE(started.find("classname=\"pdctl.start.prefill\" name=\"gate rank0 /health == 200\""),
              std::string::npos)
        << started;
    EXPECT_EQ(occurrences(started, "<failure"), 0u);

    const auto smoke = cluster.run({"smoke", "--junit", (dir / "smoke.xml").string()});
    ASSERT_EQ(smoke.exit_code, 0) << smoke.err;
    const auto smoked = read_text(dir / "smoke.xml");
    EXPECT_EQ(schema_errors(dir / "smoke.xml"), "") << smoked;
    EXPECT_EQ(occurrences(smoked, "<testcase "), 3u)
        << "health_generate per group, generate through the router";

    const auto doctor = cluster.run({"doctor", "--junit", (dir / "doctor.xml").string()});
    const auto doctored = read_text(dir / "doctor.xml");
    EXPECT_EQ(schema_errors(dir / "doctor.xml"), "") << doctored;
    EXPECT_NE(doctored.find("name=\"checks on n8\""), std::string::npos) << doctored;
    EXPECT_NE(doctored.find("classname=\"pdctl.doctor.static\" name=\"PD001 "), std::string::npos)
        << doctored;
    EXPECT_EQ(occurrences(doctored, "<failure") > 0, doctor.exit_code != 0) << doctor.out;
    ASSERT_EQ(cluster.run({"stop"}).exit_code, 0);

    // A start that fails: the gate case fails, naming the node and the reason, with the log tail.
    cluster.append("decode.env", "PDSIM_CRASH_AT=kv\nPDSIM_CRASH_RANK=1\n");
    const auto failed = cluster.run({"start", "--junit", (dir / "failed.xml").string()});
    EXPECT_EQ(failed.exit_code, 4) << failed.out;
    const auto broken = read_text(dir / "failed.xml");
    EXPECT_EQ(schema_errors(dir / "failed.xml"), "") << broken;
    EXPECT_EQ(occurrences(broken, "<failure"), 1u) << broken;
    EXPECT_NE(broken.find("decode rank 1 on n6"), std::string::npos) << broken;
    EXPECT_NE(broken.find("pdsim injected crash"), std::string::npos) << "the log tail:\n" << broken;
    EXPECT_EQ(occurrences(broken, "classname=\"pdctl.start.router\""), 0u) << "the router never started";

    EXPECT_EQ(cluster.run({"smoke", "--junit", "/nonexistent/dir/x.xml"}).exit_code, 2);
}

}  // namespace
}  // namespace pdctl::testing

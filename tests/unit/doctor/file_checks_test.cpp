// FILE001: the files of `files:` on a node, from push's listing, against the local sources' sha256.
#include <gtest/gtest.h>

#include "doctor_test_util.hpp"

namespace pdctl::doctor::testing {
namespace {

const std::string kWheelSha(64, 'a');
const std::string kOtherSha(64, 'b');

NodeNeeds node_with_files() {
    auto needs = sglang_node("n3");
    needs.files = {{"/src/patch.py", "/tmp/patch.py", ""},  // source unreadable here: presence only
                   {"/src/m.whl", "/data/wheels/m.whl", kWheelSha}};
    return needs;
}

NodeProbe answered(const std::string& files_out) {
    auto probe = ProbeAnswer().idle_gpus().probe();
    probe.files_probed = true;
    probe.files_out = files_out;
    return probe;
}

TEST(DoctorFileChecks, FilesInPlaceWithTheRightChecksumPass) {
    const auto result = evaluate_live({node_with_files()},
                                      {answered("file 644 " + kOtherSha + "\nfile 644 " + kWheelSha + "\n")});
    EXPECT_TRUE(with_id(result, "FILE001").empty()) << listed(result);
}

TEST(DoctorFileChecks, MissingAndDifferentFilesAreErrorsNamingThem) {
    const auto result =
        evaluate_live({node_with_files()}, {answered("missing\nfile 644 " + kOtherSha + "\n")});
    const auto findings = with_id(result, "FILE001");
    ASSERT_EQ(findings.size(), 2u) << listed(result);
    EXPECT_EQ(findings[0].severity, lint::Severity::Error);
    EXPECT_EQ(findings[0].node, "n3");
    EXPECT_EQ(findings[0].message, "1 of 2 files missing: /tmp/patch.py");
    EXPECT_EQ(findings[1].message, "1 file differs from the local source (sha256): /data/wheels/m.whl");
    EXPECT_NE(findings[0].fix.find("pdctl push"), std::string::npos);
}

TEST(DoctorFileChecks, AnUnreadableListingIsAWarning) {
    auto probe = answered("garbage\n");
    const auto findings = with_id(evaluate_live({node_with_files()}, {probe}), "FILE001");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].severity, lint::Severity::Warn);
}

TEST(DoctorFileChecks, ANodeWithoutFilesIsNotChecked) {
    const auto with = evaluate_live({node_with_files()}, {answered("missing\nmissing\n")});
    const auto without = evaluate_live({sglang_node("n3")}, {ProbeAnswer().idle_gpus().probe()});
    EXPECT_EQ(with.checks, without.checks + 1);
}

}  // namespace
}  // namespace pdctl::doctor::testing

// `doctor:`: rules the site acknowledges (`ignore:`, each with its reason) and the management NICs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using ::testing::HasSubstr;
using testing::kMinimalCluster;
using testing::load;
using testing::load_error;

std::string with_doctor(const std::string& doctor) {
    return std::string(kMinimalCluster) + "doctor:\n" + doctor;
}

TEST(ConfigDoctor, DefaultsAcknowledgeNothingAndTakeTheRunbooksManagementNic) {
    const auto cluster = load(kMinimalCluster);
    EXPECT_TRUE(cluster.doctor.ignore.empty());
    EXPECT_EQ(cluster.doctor.management_interfaces, (std::vector<std::string>{"bond0"}));
}

TEST(ConfigDoctor, ReadsAcknowledgedRulesWithTheirReasonAndLine) {
    const auto cluster =
        load(with_doctor("  ignore:\n"
                         "    - {rule: PD014, reason: \"confirmed on site, 2026-11\"}\n"
                         "    - rule: NET003\n"
                         "      reason: bond1 is named eth2 on the spare nodes\n"));
    ASSERT_EQ(cluster.doctor.ignore.size(), 2u);
    EXPECT_EQ(cluster.doctor.ignore[0].rule, "PD014");
    EXPECT_EQ(cluster.doctor.ignore[0].reason, "confirmed on site, 2026-11");
    EXPECT_EQ(cluster.doctor.ignore[0].where.line, 24);
    EXPECT_EQ(cluster.doctor.ignore[1].rule, "NET003");
    EXPECT_EQ(cluster.doctor.ignore[1].where.line, 25);
}

TEST(ConfigDoctor, AnAcknowledgementNeedsARuleIdAndAReason) {
    const auto error =
        load_error(with_doctor("  ignore:\n"
                               "    - {rule: PD014}\n"
                               "    - {rule: pd14, reason: typo}\n"
                               "    - {rule: PD006, reason: \"  \"}\n"
                               "    - {reason: no rule}\n"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:24:7: error: doctor.ignore[0]: missing required key `reason`"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:25:14: error: doctor.ignore[1].rule: `pd14` is not a rule ID"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:26:29: error: doctor.ignore[2].reason: must not be empty"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:27:7: error: doctor.ignore[3]: missing required key `rule`"));
}

TEST(ConfigDoctor, ARuleAcknowledgedTwiceIsAnError) {
    const auto error =
        load_error(with_doctor("  ignore:\n"
                               "    - {rule: PD014, reason: a}\n"
                               "    - {rule: PD014, reason: b}\n"));
    EXPECT_THAT(error, HasSubstr("25:14: error: doctor.ignore[1].rule: PD014 is acknowledged twice"));
    EXPECT_THAT(error, HasSubstr("first at line 24"));
}

TEST(ConfigDoctor, ManagementInterfacesReplaceTheDefault) {
    EXPECT_EQ(load(with_doctor("  management_interfaces: [eno1, bond0]\n")).doctor.management_interfaces,
              (std::vector<std::string>{"eno1", "bond0"}));
    EXPECT_EQ(load(with_doctor("  management_interfaces: eth0\n")).doctor.management_interfaces,
              (std::vector<std::string>{"eth0"}));
    EXPECT_TRUE(load(with_doctor("  management_interfaces: []\n")).doctor.management_interfaces.empty());
    EXPECT_THAT(load_error(with_doctor("  management_interfaces: [\"bond 0\"]\n")),
                HasSubstr("doctor.management_interfaces[0]: `bond 0` is not an interface name"));
}

TEST(ConfigDoctor, UnknownKeysAndShapesAreErrors) {
    EXPECT_THAT(load_error(with_doctor("  ignor: []\n")), HasSubstr("did you mean `ignore`?"));
    EXPECT_THAT(load_error(with_doctor("  ignore: PD014\n")), HasSubstr("doctor.ignore: expected a list"));
    EXPECT_THAT(load_error(with_doctor("  ignore:\n    - {rule: PD014, reason: a, until: 2027}\n")),
                HasSubstr("doctor.ignore[0].until: unknown key"));
}

}  // namespace
}  // namespace pdctl::config

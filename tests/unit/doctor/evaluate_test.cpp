// The live check table: every check's reference is something an operator can open (its section of
// docs/doctor.md, then upstream URLs), every check has its section and every section its check, and
// findings carry their check's reference.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "doctor_test_util.hpp"
#include "unit/support/doctor_doc.hpp"

namespace pdctl::doctor::testing {
namespace {

std::string reference_of(const std::string& id) {
    for (const auto& check : live_checks())
        if (check.id == id) return std::string(check.reference);
    return "(not in live_checks())";
}

TEST(DoctorLiveChecks, EveryReferenceIsTheChecksSectionThenUpstreamUrls) {
    const auto doc = pdctl::testing::read_doctor_doc();
    for (const auto& check : live_checks())
        EXPECT_EQ(pdctl::testing::reference_problem(check.id, check.reference, doc), "")
            << check.id << ": " << check.reference;
}

TEST(DoctorLiveChecks, EveryCheckHasASectionAndEverySectionACheck) {
    const auto doc = pdctl::testing::read_doctor_doc();
    std::set<std::string> checks;
    for (const auto& check : live_checks())
        EXPECT_TRUE(checks.insert(std::string(check.id)).second) << check.id;
    std::set<std::string> sections;
    for (const auto& id : doc.id_headings)
        if (!id.starts_with("PD")) sections.insert(id);
    EXPECT_EQ(checks, sections);
}

TEST(DoctorLiveChecks, FindingsCarryTheirChecksReference) {
    NodeProbe unreachable;
    unreachable.transport_error = "connect to 10.0.0.1:22: Connection refused";
    NodeProbe late;
    late.timed_out = true;
    auto simulated = sglang_node("n4", 8);
    simulated.pdsim_processes = true;
    const auto no_gpu = ProbeAnswer().line({"gpu-query", "missing"});
    const auto result = evaluate_live({sglang_node("n1"), sglang_node("n2"), sglang_node("n3", 8), simulated},
                                      {unreachable, late, no_gpu.probe(), no_gpu.probe()});
    std::set<std::string> ids;
    for (const auto& finding : result.findings) {
        ids.insert(finding.id);
        EXPECT_EQ(finding.reference, reference_of(finding.id)) << finding.id;
    }
    EXPECT_EQ(ids, (std::set<std::string>{"NET001", "NET002", "GPU001"})) << listed(result);
}

}  // namespace
}  // namespace pdctl::doctor::testing

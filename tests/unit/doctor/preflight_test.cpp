// Which live findings stop a start, and at which severity (the preflight's reading of the doctor's checks).
#include "pdctl/doctor/preflight.hpp"

#include <gtest/gtest.h>

namespace pdctl::doctor {
namespace {

lint::Finding finding(const std::string& id, lint::Severity severity) {
    lint::Finding f;
    f.id = id;
    f.severity = severity;
    f.message = id + " message";
    return f;
}

TEST(Preflight, BusyGpusAndMissingImagesBecomeErrorsAndUnrelatedChecksAreLeftOut) {
    const auto kept = preflight_findings(
        {finding("GPU003", lint::Severity::Warn), finding("CTR002", lint::Severity::Warn),
         finding("SYS002", lint::Severity::Warn),   // disk space: doctor's
         finding("SYS003", lint::Severity::Error),  // clock skew: doctor's
         finding("RDMA003", lint::Severity::Warn),  // not a start blocker
         finding("PORT001", lint::Severity::Error), finding("GPU001", lint::Severity::Info)});
    std::vector<std::string> ids;
    for (const auto& f : kept)
        ids.push_back(f.id + (f.severity == lint::Severity::Error ? " error" : " info"));
    EXPECT_EQ(ids,
              (std::vector<std::string>{"GPU003 error", "CTR002 error", "PORT001 error", "GPU001 info"}));
}

}  // namespace
}  // namespace pdctl::doctor

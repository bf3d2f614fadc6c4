// The nvidia-smi parsers on the real H200 outputs (tests/fixtures/) and on what they must refuse.
#include <gtest/gtest.h>

#include "doctor_test_util.hpp"
#include "pdctl/doctor/facts.hpp"

namespace pdctl::doctor::testing {
namespace {

TEST(DoctorNvidiaSmi, IdleH200QueryGivesOneGpuWithNoMemoryUsed) {
    const auto query = parse_gpu_query(fixture("nvidia-smi-h200-idle.query-gpu.csv"));
    ASSERT_TRUE(query.error.empty()) << query.error;
    ASSERT_EQ(query.gpus.size(), 1u);
    EXPECT_EQ(query.gpus[0].index, 0);
    EXPECT_EQ(query.gpus[0].used_mib, 0);
    EXPECT_EQ(query.gpus[0].total_mib, 143771);
}

TEST(DoctorNvidiaSmi, BusyH200QueryWithItsTrailingBlankLine) {
    const auto query = parse_gpu_query(fixture("nvidia-smi-h200-busy.query-gpu.csv"));
    ASSERT_TRUE(query.error.empty()) << query.error;
    ASSERT_EQ(query.gpus.size(), 1u);
    EXPECT_EQ(query.gpus[0].used_mib, 19601);
}

TEST(DoctorNvidiaSmi, IdleComputeAppsIsTheHeaderAlone) {
    const auto apps = parse_compute_apps(fixture("nvidia-smi-h200-idle.compute-apps.csv"));
    EXPECT_TRUE(apps.error.empty()) << apps.error;
    EXPECT_TRUE(apps.apps.empty());
}

TEST(DoctorNvidiaSmi, BusyComputeAppsNamesThePidProcessAndMemory) {
    const auto apps = parse_compute_apps(fixture("nvidia-smi-h200-busy.compute-apps.csv"));
    ASSERT_TRUE(apps.error.empty()) << apps.error;
    ASSERT_EQ(apps.apps.size(), 1u);
    EXPECT_EQ(apps.apps[0].pid, "432");
    EXPECT_EQ(apps.apps[0].name, "python3");
    EXPECT_EQ(apps.apps[0].used_mib, 19592);
}

TEST(DoctorNvidiaSmi, EightGpusAndUnknownAppMemory) {
    std::string csv;
    for (int i = 0; i < 8; ++i) csv += std::to_string(i) + ", 0, 143771\n";
    EXPECT_EQ(parse_gpu_query(csv).gpus.size(), 8u);
    const auto apps = parse_compute_apps("pid, process_name, used_gpu_memory [MiB]\n77, a, b, [N/A]\n");
    ASSERT_EQ(apps.apps.size(), 1u);
    EXPECT_EQ(apps.apps[0].name, "a, b");
    EXPECT_EQ(apps.apps[0].used_mib, -1);
}

TEST(DoctorNvidiaSmi, RefusesWhatIsNotTheAskedFormat) {
    // With a header (no noheader), units, or the driver's failure text instead of CSV.
    EXPECT_FALSE(parse_gpu_query("index, memory.used [MiB], memory.total [MiB]\n0, 0 MiB, 143771 MiB\n")
                     .error.empty());
    EXPECT_EQ(
        parse_gpu_query("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
            .error,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.");
    EXPECT_FALSE(parse_compute_apps("432, python3, 19592 MiB\n").error.empty()) << "rows without the header";
    EXPECT_FALSE(parse_compute_apps("").error.empty());
}

}  // namespace
}  // namespace pdctl::doctor::testing

// The preflight's and doctor's findings folded for people: 8 hosts without GPUs or RDMA devices,
// which were 72 lines (a node, a device and the variable that names it each), are 4.
#include "pdctl/lint/folded_findings.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace pdctl::lint {
namespace {

Finding finding(const std::string& id, const std::string& node, const std::string& message) {
    Finding f;
    f.id = id;
    f.node = node;
    f.message = message;
    return f;
}

std::vector<std::string> lines(const std::vector<FoldedFinding>& folded) {
    std::vector<std::string> out;
    for (const auto& f : folded) out.push_back(fmt::format("{} {} ({})", f.id, f.message, f.count));
    return out;
}

TEST(FoldedFindings, EightHostsWithoutGpusOrRdmaDevicesAreFourLines) {
    std::vector<Finding> found;
    for (int n = 1; n <= 8; ++n) {
        const auto node = "n" + std::to_string(n);
        const std::string role = n <= 4 ? "prefill" : "decode";
        found.push_back(
            finding("GPU001", node,
                    node + " is not a GPU node: nvidia-smi is not on PATH, and " + role + " needs 8 GPUs"));
        for (const char* source : {"NCCL_IB_HCA", "--disaggregation-ib-device"})
            for (int device = 0; device < 4; ++device)
                found.push_back(
                    finding("RDMA001", node,
                            fmt::format("RDMA device mlx5_{} ({} of {}) does not exist on {}: the node "
                                        "has no RDMA device",
                                        device, source, role, node)));
    }
    ASSERT_EQ(found.size(), 72u);
    EXPECT_EQ(
        lines(fold_findings(found)),
        (std::vector<std::string>{
            "GPU001 n1–n4 is not a GPU node: nvidia-smi is not on PATH, and prefill needs 8 GPUs (4)",
            "RDMA001 RDMA device mlx5_0–mlx5_3 (NCCL_IB_HCA, --disaggregation-ib-device of prefill) does "
            "not exist on n1–n4: the node has no RDMA device (32)",
            "GPU001 n5–n8 is not a GPU node: nvidia-smi is not on PATH, and decode needs 8 GPUs (4)",
            "RDMA001 RDMA device mlx5_0–mlx5_3 (NCCL_IB_HCA, --disaggregation-ib-device of decode) does "
            "not exist on n5–n8: the node has no RDMA device (32)",
        }));
}

// Folding never claims a combination that was not found: n2 has only mlx5_0 down, so mlx5_1's line
// does not name it.
TEST(FoldedFindings, OnlyWhatWasFoundOnEachNodeIsClaimed) {
    std::vector<Finding> found;
    for (const auto& [node, devices] :
         std::vector<std::pair<std::string, std::vector<int>>>{{"n1", {0, 1}}, {"n2", {0}}, {"n3", {0, 1}}})
        for (const int device : devices)
            found.push_back(finding("RDMA002", node,
                                    fmt::format("RDMA device mlx5_{} on {} is not ACTIVE", device, node)));
    EXPECT_EQ(lines(fold_findings(found)),
              (std::vector<std::string>{"RDMA002 RDMA device mlx5_0 on n1–n3 is not ACTIVE (3)",
                                        "RDMA002 RDMA device mlx5_1 on n1, n3 is not ACTIVE (2)"}));
}

TEST(FoldedFindings, DifferentRulesSeveritiesOrTwoWordsApartStaySeparate) {
    auto warn = finding("PORT001", "n1", "port 30000 on n1 is taken: pid 4 sglang");
    warn.severity = Severity::Warn;
    const std::vector<Finding> found{
        finding("PORT001", "n1", "port 30000 on n1 is taken: pid 4 sglang"),
        warn,
        finding("PORT001", "n2", "port 30001 on n2 is taken: pid 9 nginx"),
        finding("CTR001", "", "image lmsysorg/sglang:v0.5.4 is missing"),
        finding("CTR001", "", "image lmsysorg/sglang:v0.5.4 is missing"),
    };
    EXPECT_EQ(lines(fold_findings(found)),
              (std::vector<std::string>{"PORT001 port 30000 on n1 is taken: pid 4 sglang (1)",
                                        "PORT001 port 30000 on n1 is taken: pid 4 sglang (1)",
                                        "PORT001 port 30001 on n2 is taken: pid 9 nginx (1)",
                                        "CTR001 image lmsysorg/sglang:v0.5.4 is missing (2)"}));
}

// A message that does not say where it holds keeps its node: it is folded with its own node's only.
TEST(FoldedFindings, AMessageWithoutItsNodeIsNotFoldedAcrossNodes) {
    const std::vector<Finding> found{finding("SYS001", "n1", "memlock ulimit is 64 KiB"),
                                     finding("SYS001", "n2", "memlock ulimit is 64 KiB"),
                                     finding("SYS001", "n1", "memlock ulimit is 64 KiB")};
    const auto folded = fold_findings(found);
    ASSERT_EQ(folded.size(), 2u);
    EXPECT_EQ(folded[0].nodes, std::vector<std::string>{"n1"});
    EXPECT_EQ(folded[0].count, 2u);
    EXPECT_EQ(folded[1].nodes, std::vector<std::string>{"n2"});
}

}  // namespace
}  // namespace pdctl::lint

#pragma once
// Findings for people: the same finding on many nodes and devices is one line, as exec folds
// identical output. "RDMA001 RDMA device mlx5_0–mlx5_3 (NCCL_IB_HCA, --disaggregation-ib-device of
// prefill) does not exist on n1–n8: the node has no RDMA device" stands for 64 findings. Pure; the
// full list stays in --json and -v.

#include <string>
#include <vector>

#include "pdctl/lint/finding.hpp"

namespace pdctl::lint {

struct FoldedFinding {
    std::string id;
    Severity severity = Severity::Error;
    std::string message;    // the nodes as ranges, and each word that differed as the list of its values
    std::size_t count = 0;  // how many findings it stands for
    std::vector<std::string> nodes;  // the nodes of those findings, in first-appearance order
};

// Two findings fold when they have the same rule and severity and their messages are the same but
// for the node's name (then the nodes are listed), or for one word (then its values are): repeated,
// so a device on every node from two sources is one line. A message that does not name its node is
// folded only with findings of the same node, so that no line hides where it holds. Order: first
// appearance.
std::vector<FoldedFinding> fold_findings(const std::vector<Finding>& findings);

}  // namespace pdctl::lint

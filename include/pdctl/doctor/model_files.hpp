#pragma once
// FILE002: a model's files alike on every node that loads it. Each rank reads its shards from its own
// node's disk; a shard missing or cut short on one node is otherwise found when that rank fails, most
// of the way through a load of many minutes. The nodes list each model directory (file and size,
// scripts/model_files.sh) and are compared with each other: the check needs no manifest and reads no
// file's content.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/exec/command.hpp"

namespace pdctl::doctor {

struct ModelListing {
    bool present = false;                        // the directory exists on the node
    std::map<std::string, std::uint64_t> files;  // path below it -> bytes
};

// `sh -c SCRIPT pdctl-model-files DIR...`.
exec::Command model_files_command(const std::vector<std::string>& dirs);
// The script's output, by directory; a directory the output does not end for (no `end` line: the node
// stopped answering) is left out.
std::map<std::string, ModelListing> parse_model_files(const std::string& out);

// The node's memory in bytes, from the same output; 0 when it did not say.
std::uint64_t parse_node_memory(const std::string& out);

// FILE003: the model directories one node loads are larger than its memory, so its page cache cannot
// hold them: `--prewarm` would read them for nothing, and every start reads them from disk. nullopt
// when they fit (or the memory is unknown). Pure.
std::optional<std::string> model_memory_problem(const std::map<std::string, ModelListing>& listings,
                                                std::uint64_t memory);

// One node's listing of one directory, for the comparison.
struct NodeModelListing {
    std::string node;
    std::string role;  // a role that loads it there
    const ModelListing* listing = nullptr;
};

struct ModelFileProblem {
    std::string node;
    std::string role;
    std::string message;  // "model file x.safetensors missing from /data/m (n1, n2, n4 have it, 4.9 GB)"
};

// The nodes of one directory against each other: a node without the directory where others have it;
// a file some node has and another lacks; a file whose size differs from what most nodes have (on a
// tie, the larger: a copy cut short is smaller). Nothing when no node has the directory (the model is
// inside the image, or mounted otherwise: nothing to compare). Pure.
std::vector<ModelFileProblem> compare_model_files(const std::string& dir,
                                                  const std::vector<NodeModelListing>& nodes);

}  // namespace pdctl::doctor

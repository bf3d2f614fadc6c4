#pragma once
// What `pdctl pull` does, as pure data: which images each node must hold (every distinct
// `container.image` of the docker-runtime roles on it), the argv that pulls and inspects one, and the
// comparison of the image IDs the nodes report. The executor-facing part is pull/puller.hpp.

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"

namespace pdctl::pull {

// One image as one container CLI names it: two roles with the same image but different CLIs (docker
// and podman keep separate stores) are two pulls.
struct ImageRef {
    std::string image;
    std::string cli;
    bool operator==(const ImageRef&) const = default;
};

// The images one node must hold, in role order, each once.
struct NodeImages {
    config::Node node;
    std::vector<ImageRef> images;
};

// `--role` / `--node`: empty = every role / node.
struct PullFilter {
    std::vector<std::string> roles;
    std::vector<std::string> nodes;
};

// Every node (in `nodes:` order) that has at least one image to pull under the filter. Roles with the
// process runtime pull nothing. Names in the filter must exist (ops::select_pulls checks: unknown_names).
std::vector<NodeImages> plan_pull(const config::Cluster& cluster, const PullFilter& filter = {});
// The filter's role and node names that the cluster does not have, as "role 'x'" / "node 'y'".
std::vector<std::string> unknown_names(const config::Cluster& cluster, const PullFilter& filter);

// `<cli> pull <image>`; `timeout` bounds one pull (a 30 GB image takes many minutes).
exec::Command pull_command(const ImageRef& ref, std::chrono::milliseconds timeout);
// `<cli> image inspect --format {{.Id}} <image>`: the image ID on stdout, non-zero when it is absent.
exec::Command image_id_command(const ImageRef& ref);
// The ID from image_id_command's output, or "" when it is not one (docker: "sha256:<hex>", podman: hex).
std::string parse_image_id(const std::string& output);
// The first 12 hex digits, without a "sha256:" prefix.
std::string short_id(const std::string& id);
// The last lines of a CLI's stderr, at most `max_chars`: "manifest unknown", "connection refused", ...
std::string stderr_tail(const std::string& err, std::size_t max_lines = 3, std::size_t max_chars = 400);

// One node's ID of one image.
struct NodeId {
    std::string node;
    std::string id;
};
// A node whose ID differs from the one most nodes have.
struct IdMismatch {
    ImageRef image;
    std::string node;
    std::string id;
    std::string majority;
};
// The ID most nodes report for one image (ties: the first node's) and the nodes that differ. Nodes
// without an ID (their pull failed) take no part.
std::string majority_id(const std::vector<NodeId>& ids);
std::vector<IdMismatch> mismatches(const ImageRef& image, const std::vector<NodeId>& ids);

}  // namespace pdctl::pull

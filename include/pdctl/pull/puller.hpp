#pragma once
// Runs a pull plan: every node in parallel (bounded), each node's images one after the other. Per
// image: the ID before, `<cli> pull`, the ID after ("already present" when the pull left the ID as it
// was). Then the IDs of every image are compared across its nodes: one image name must mean one image.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"
#include "pdctl/pull/pull_plan.hpp"

namespace pdctl::pull {

using Duration = std::chrono::milliseconds;

struct ImageOutcome {
    enum class Status { Pulled, Present, Failed, Skipped };
    ImageRef image;
    Status status = Status::Skipped;
    std::string id;  // after the pull; empty when it failed
    Duration elapsed{0};
    std::string error;  // Failed/Skipped: why (the CLI's stderr tail)
    bool ok() const { return status == Status::Pulled || status == Status::Present; }
};

struct NodeOutcome {
    std::string node;
    std::vector<ImageOutcome> images;  // in the node's plan order
    bool unreachable = false;
    Duration elapsed{0};
    std::size_t ok_count() const;
};

struct PullResult {
    std::vector<NodeOutcome> nodes;  // in plan order
    std::vector<IdMismatch> mismatches;
    Duration elapsed{0};
    bool all_pulled() const;  // every image on every node, no mismatch
    bool any_unreachable() const;
    bool any_failed() const;  // a pull failed on a reachable node, or an ID differs
};

// Called from the node workers and the progress ticker, one call at a time (the puller serialises them).
class PullObserver {
  public:
    virtual ~PullObserver() = default;
    virtual void image_done(const std::string& node, const ImageOutcome& image, std::size_t done,
                            std::size_t total) = 0;
    virtual void node_done(const NodeOutcome& outcome) = 0;
    // A pull that has run for `elapsed` and is still running (every PullOptions::progress_every).
    virtual void still_pulling(const std::string& node, const ImageRef& image, Duration elapsed) = 0;
};

struct PullOptions {
    std::size_t max_parallel_nodes = 16;
    Duration timeout{std::chrono::minutes(60)};  // one `<cli> pull`
    Duration progress_every{std::chrono::seconds(30)};
    std::function<bool()> interrupted = [] { return false; };
};

PullResult run_pull(exec::Executor& executor, const std::vector<NodeImages>& plan, PullObserver& observer,
                    const PullOptions& options = {});

std::string to_string(ImageOutcome::Status status);  // "pulled", "present", "failed", "skipped"

}  // namespace pdctl::pull

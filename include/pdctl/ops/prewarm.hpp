#pragma once
// `start --prewarm`: every node that loads a model (an sglang rank's --model-path) reads it into the
// page cache while the start runs its preflight and its earlier stages, one command per node, all in
// parallel (runtime/page_cache.hpp). A rank is launched only once its node's reading ended, so it
// loads from memory. What each node read, how much stayed resident and whether the model fits in its
// memory is said when the run ends.

#include <future>
#include <map>
#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/runtime/page_cache.hpp"

namespace pdctl::ops {

// The model directories each node of `target` loads, by node (pure).
std::map<std::string, std::vector<std::string>> model_dirs_by_node(const plan::Plan& target);

struct NodePrewarmResult {
    std::string node;
    std::string error;  // the node did not answer, or the command failed
    runtime::NodePrewarm read;
};

// One line per node and directory for the run's notes; a node whose memory cannot hold what it read
// is said so.
std::vector<std::string> prewarm_notes(const std::vector<NodePrewarmResult>& results);

class Prewarm {
  public:
    // Starts reading at once, in the background.
    Prewarm(const Deployment& deployment, const plan::Plan& target);
    ~Prewarm();
    Prewarm(const Prewarm&) = delete;
    Prewarm& operator=(const Prewarm&) = delete;

    // Blocks until `node` has read its models (at once for a node that reads none).
    void wait_for(const std::string& node);
    // Every node's result; waits for those still reading.
    std::vector<NodePrewarmResult> results();

  private:
    std::map<std::string, std::shared_future<NodePrewarmResult>> pending_;
};

}  // namespace pdctl::ops

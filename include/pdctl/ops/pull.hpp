#pragma once
// `pdctl pull`: the runbook's "docker pull on every node" step, in parallel and verified: after the
// pulls, every node must report the same image ID for each image (a tag moved during the rollout, or a
// node pulling through another mirror, would otherwise start mixed versions). Holds the deploy lock (a
// start must not run half-pulled images) and is journaled like push.

#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/pull/pull_plan.hpp"
#include "pdctl/pull/puller.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// What shows a pull as it runs (report::PullPrinter).
class PullView : public pull::PullObserver {
  public:
    virtual void begin(const std::vector<pull::NodeImages>& plan) = 0;
    virtual void end(const pull::PullResult& result) = 0;
    // The run in one line, for the journal.
    virtual std::string summary(const pull::PullResult& result) const = 0;
};

// The pulls of `plan` (pull::plan_pull, not empty) under the deploy lock, journaled.
ExitCode run_pull(const Deployment& deployment, const std::vector<pull::NodeImages>& plan,
                  pull::PullOptions options, PullView& view);

}  // namespace pdctl::ops

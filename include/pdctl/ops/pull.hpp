#pragma once
// `pdctl pull`: the runbook's "docker pull on every node" step, in parallel and verified: after the
// pulls, every node must report the same image ID for each image (a tag moved during the rollout, or a
// node pulling through another mirror, would otherwise start mixed versions). Holds the deploy lock (a
// start must not run half-pulled images) and is journaled like push.

#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"
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

// What --role/--group and --node select: the images of every group of a role named (as on every verb),
// on the nodes named; nothing named: every docker-runtime role's images on its nodes.
struct PullSelection {
    std::vector<pull::NodeImages> plan;  // empty: nothing runs with `runtime: docker` and an image
    bool narrowed = false;               // a role, group or node was named
};
// Throws Failure (usage) for a role, group or node the config does not hold.
PullSelection select_pulls(const Deployment& deployment, const plan::Scope& scope,
                           const std::vector<std::string>& nodes);

// The pulls of `plan` (select_pulls, not empty) under the deploy lock, journaled.
ExitCode run_pull(const Deployment& deployment, const std::vector<pull::NodeImages>& plan,
                  pull::PullOptions options, PullView& view);

}  // namespace pdctl::ops

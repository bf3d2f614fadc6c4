#pragma once
// `pdctl start --take-over`: moving a running deployment that pdctl did not start (deploy_pd.sh's) to
// pdctl. On the nodes of the stages to start, find what holds their ports, GPUs or images without
// being pdctl's (doctor/takeover.hpp), show it, stop it cleanly — containers stopped and kept, never
// removed — and journal each one; then the start goes on as usual, its preflight checking that the
// nodes are free. docs/migrating.md has the cut-over around it.

#include <string>
#include <vector>

#include "pdctl/doctor/takeover.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct TakeoverNode {
    std::string node;
    std::vector<doctor::ForeignHolder> holders;
    std::string error;  // the node could not be probed (unreachable, the probe failed): nothing is known
};

struct TakeoverScan {
    std::vector<TakeoverNode> nodes;  // every node of `plan`, in `nodes:` order
    std::size_t holders() const;
    ExitCode code() const;  // kUnreachable when a node could not be probed
};

// Probes every node of `plan` at once. Touches nothing.
TakeoverScan scan_for_take_over(const Deployment& deployment, const plan::Plan& plan);
// The same for the stages `verb` runs in `scope` (`start --take-over --dry-run`).
TakeoverScan scan_for_take_over(const Deployment& deployment, const plan::Scope& scope,
                                const std::string& verb);

// Stops every holder of `scan` (every node at once, a node's holders one by one), each as a note on
// `reporter` (so in the run's output and journal). kStopFailed when one is still there, kUnreachable
// when a node could not be reached; kOk otherwise.
ExitCode stop_foreign_holders(const Deployment& deployment, const TakeoverScan& scan,
                              engine::Reporter& reporter);

// "container sglang-prefill (lmsysorg/sglang:kimi-k3) on n1: port 30000 (prefill rank 0 --port), ..."
std::string describe(const doctor::ForeignHolder& holder);

}  // namespace pdctl::ops

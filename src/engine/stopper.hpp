#pragma once
// Internal to the engine: stopping. `stop` ends every unit of the plan in reverse stage order, then the
// units of this cluster the plan no longer names, then waits for their GPUs; its pieces serve the
// starter's clean-up and the rolling restart.

#include <set>
#include <string>
#include <vector>

#include "run_context.hpp"

namespace pdctl::engine {

class Stopper {
  public:
    explicit Stopper(RunContext& run) : run_(run) {}

    ExitCode stop();
    // Stops the stages' units (each stage's units in parallel, stages in the given order) and returns
    // the units whose stop failed. Units on `skip` nodes (unreachable) are left out: their stop would
    // only time out.
    std::vector<StopFailure> stop_stages(const std::vector<const plan::Stage*>& stages,
                                         const std::string& verb, const std::set<std::string>& skip = {});
    // Stops the units of this cluster found on the nodes that the plan does not name (a group or role
    // removed since they started); `stopped_on` gets their nodes. Returns the stops that failed.
    std::vector<StopFailure> stop_leftovers(const Observation& observation,
                                            std::set<std::string>& stopped_on);
    // Waits until every one of `nodes` shows no GPU compute process, or the deadline. Returns what is
    // still held ("n1: pid 432 python3 19592 MiB"), empty when all are free or cannot be checked.
    std::vector<std::string> wait_for_gpu_release(const std::vector<std::string>& nodes);
    // "pd-x-decode-1 on n6 (127.0.0.6): <what>; ..." for messages.
    std::string describe(const std::vector<StopFailure>& failures) const;

  private:
    RunContext& run_;
};

}  // namespace pdctl::engine

#pragma once
// --gated-launch-port: a server that starts, joins its group and then waits, before its large GPU
// allocation (the model's weights, the KV cache), until someone opens the gate. A deployer starts the
// new ranks this way while the old ones still serve and opens the gate once the old ones are gone.
// Modelled on SGLang's python/sglang/srt/distributed/gated_launch.py: the group's rank 0 serves
// GET /health ("OK") and POST /gate/activate ("OK") on --host:--gated-launch-port; every rank polls
// once a second (rank 0's flag, broadcast to the group) and goes on when it is set. The wait happens
// inside "Init torch distributed", before its end line. As upstream, a port that cannot be bound is
// logged and the ranks wait on: nothing can open that gate.

#include <httplib.h>

#include <atomic>
#include <string>

namespace pdsim {

class GatedLaunch {
  public:
    // Rank 0 of the group: binds host:port and serves the control endpoints in the background.
    void serve(const std::string& host, int port, int tp_rank);
    // Blocks until the gate is open, polling once a second as upstream does (rank 0's view; the
    // others learn it through the group's barrier).
    void wait_until_activated() const;

  private:
    httplib::Server server_;
    std::atomic<bool> activated_{false};
};

}  // namespace pdsim

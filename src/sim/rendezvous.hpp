#pragma once
// The torch.distributed rendezvous of a multi-node SGLang group at --dist-init-addr. Node-rank 0
// listens there and waits until every other rank has connected; only then does any rank finish
// "Init torch distributed". The connections stay open afterwards and stand in for NCCL: when one
// member of the group dies, the others notice and exit too, as a real group dies together.

#include <string>
#include <vector>

#include "sim/net.hpp"
#include "sim/process.hpp"

namespace pdsim {

struct RendezvousConfig {
    HostPort dist_init;  // rank 0's address
    int nnodes = 1;
    int node_rank = 0;
    int tp_rank = 0;  // log prefix of this node's scheduler
    Millis timeout{600000};
    // How long the survivors take to notice that a member died. Real groups notice through NCCL
    // timeouts, never at once; the delay also lets a deployer see which node failed first.
    Millis peer_death{1000};
};

class Rendezvous {
  public:
    explicit Rendezvous(RendezvousConfig config) : config_(std::move(config)) {}

    // Rank 0 only, and before join(): binds --dist-init-addr, so a clash shows up at once.
    // Exits the process (status 1) if the address cannot be bound.
    void listen();

    // Blocks until the whole group has joined. Failures (timeout, rank 0 gone) are fatal: the
    // scheduler exception is logged and the process exits 1.
    void join();

    // Watches the group's links on background threads: a dropped link ends the process (exit 1).
    void monitor();

  private:
    void join_as_master();
    void join_as_worker();

    RendezvousConfig config_;
    Socket listener_;
    std::vector<std::pair<int, Socket>> peers_;  // rank 0: (node rank, link)
    Socket master_link_;                         // rank >= 1: link to rank 0
};

}  // namespace pdsim

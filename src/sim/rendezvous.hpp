#pragma once
// The torch.distributed rendezvous of a multi-node SGLang group at --dist-init-addr. Node-rank 0
// listens there and waits until every other rank has connected; only then does any rank finish
// "Init torch distributed". The connections stay open afterwards and stand in for NCCL: when one
// member of the group dies, the others notice and exit too, as a real group dies together; and the
// group's collective steps (barrier()) wait for every member, so a member that hangs holds up all.

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
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
    // Also the only reader of the links after join(), for barrier().
    void monitor();

    // A collective step of the group, named `step`: returns once every member has reached it. Real
    // TP groups meet like this in NCCL calls (the memory all-reduce before the KV cache is sized, the
    // CUDA-graph capture, the first forward pass), so a member stuck loading its weights keeps rank 0
    // from ever opening its API port. No deadline: the deployer's gate is the one that fires. After
    // monitor(); each step name is used once.
    void barrier(const std::string& step);

  private:
    void join_as_master();
    void join_as_worker();

    RendezvousConfig config_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, int> arrived_;  // rank 0: step -> members (other than rank 0) that reached it
    std::set<std::string> released_;      // rank >= 1: steps rank 0 let the group past
    Socket listener_;
    std::vector<std::pair<int, Socket>> peers_;  // rank 0: (node rank, link)
    Socket master_link_;                         // rank >= 1: link to rank 0
};

}  // namespace pdsim

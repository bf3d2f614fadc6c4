#include <string>
#include <vector>

#include "pdctl/engine/engine.hpp"

namespace pdctl::engine {
namespace {

struct KnownFailure {
    const char* needle;
    const char* hint;
};

// The failures operators hit most (pd-stack-facts section 7), matched on the failed unit's log.
constexpr KnownFailure kKnownFailures[] = {
    {"Mooncake memory registration failed",
     "registration failures usually mean PYTORCH_CUDA_ALLOC_CONF has expandable_segments (Mooncake #2511), "
     "no GPUDirect RDMA (nvidia_peermem / dma-buf), or a non-privileged container"},
    {"Bad address [14]",
     "Mooncake could not register GPU memory: remove expandable_segments from "
     "PYTORCH_CUDA_ALLOC_CONF and check nvidia_peermem"},
    {"Error fetching prefill parallel info from bootstrap",
     "decode cannot reach the prefill bootstrap: give the router rank-0 routable addresses and the same "
     "bootstrap port as the prefill's --disaggregation-bootstrap-port"},
    {"connectFullMesh failed",
     "Gloo cannot connect the ranks: set GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME to the "
     "cross-node NIC and check --dist-init-addr reachability"},
    {"Address already in use",
     "a port of this role is taken on the node: another instance or program is running"},
    {"Found 0 HCAs",
     "no RDMA device visible in the container: Mooncake falls back to TCP; run privileged with "
     "/dev/infiniband"},
};

}  // namespace

std::string hint_from_log(const std::vector<std::string>& lines) {
    // The table is ordered by priority (fatal causes before warnings such as a TCP fallback); within
    // one entry the newest line counts.
    for (const auto& known : kKnownFailures) {
        for (auto it = lines.rbegin(); it != lines.rend(); ++it)
            if (it->find(known.needle) != std::string::npos) return known.hint;
    }
    return {};
}

}  // namespace pdctl::engine

#pragma once
// The live checks, one function per ID, each pure: (what the plan needs, what the node has) →
// findings. A check returns false when it does not apply to the node (nothing to look at), so the
// closing line counts only checks that ran. The table and the loop are in evaluate.cpp.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/lint/rules.hpp"

namespace pdctl::doctor::detail {

// ss's local address column: "0.0.0.0:30000", "[::]:30000", "127.0.0.53%lo:53", "*:22"; nullopt when
// it is none of them.
std::optional<TcpListener> parse_listen_address(std::string_view local);
// Whether binding `host`:`port` ("" = every interface) collides with `listener`: either takes every
// interface, or both take the same address.
bool binds_collide(const std::string& host, int port, const TcpListener& listener);

struct NodeInput {
    const NodeNeeds& needs;
    const NodeFacts& facts;
    const LiveOptions& options;

    // The simulated cluster: pdsim processes on a machine without nvidia-smi. GPU and RDMA checks do
    // not apply; evaluate_live says so once for all such nodes.
    bool simulated() const { return needs.pdsim_processes && !facts.nvidia_smi_found; }
    // nvidia-smi answered with GPUs in the expected format.
    bool gpus_known() const;
};

using NodeCheck = bool (*)(const NodeInput& input, lint::FindingSink& sink);

bool check_gpu_present(const NodeInput& input, lint::FindingSink& sink);             // GPU001
bool check_gpu_count(const NodeInput& input, lint::FindingSink& sink);               // GPU002
bool check_gpu_idle(const NodeInput& input, lint::FindingSink& sink);                // GPU003
bool check_hca_present(const NodeInput& input, lint::FindingSink& sink);             // RDMA001
bool check_hca_active(const NodeInput& input, lint::FindingSink& sink);              // RDMA002
bool check_gpudirect(const NodeInput& input, lint::FindingSink& sink);               // RDMA003
bool check_nic_present(const NodeInput& input, lint::FindingSink& sink);             // NET003
bool check_nic_up(const NodeInput& input, lint::FindingSink& sink);                  // NET004
bool check_compute_address_on_nic(const NodeInput& input, lint::FindingSink& sink);  // NET005
bool check_container_cli(const NodeInput& input, lint::FindingSink& sink);           // CTR001
bool check_image_present(const NodeInput& input, lint::FindingSink& sink);           // CTR002
bool check_memlock(const NodeInput& input, lint::FindingSink& sink);                 // SYS001
bool check_stack_tool(const NodeInput& input, lint::FindingSink& sink);              // SYS004
bool check_disk_space(const NodeInput& input, lint::FindingSink& sink);              // SYS002
bool check_ports_free(const NodeInput& input, lint::FindingSink& sink);              // PORT001

// FILE001: every `files:` entry of the node present with the local source's sha256. Takes the raw
// probe (push's listing); false when the node needs no file.
bool check_files(const NodeNeeds& needs, const NodeProbe& probe, lint::FindingSink& sink);

// Cross-node checks: every reachable node's input at once; they count one check per node they read.
struct CrossNodeInput {
    std::vector<const NodeNeeds*> needs;
    std::vector<const NodeFacts*> facts;
    std::vector<const ClockSample*> clocks;
    const LiveOptions& options;
    std::vector<const NodeProbe*> probes;
};
int check_image_ids(const CrossNodeInput& input, lint::FindingSink& sink);     // CTR003
int check_clock_skew(const CrossNodeInput& input, lint::FindingSink& sink);    // SYS003
int check_model_files(const CrossNodeInput& input, lint::FindingSink& sink);   // FILE002
int check_model_memory(const CrossNodeInput& input, lint::FindingSink& sink);  // FILE003

}  // namespace pdctl::doctor::detail

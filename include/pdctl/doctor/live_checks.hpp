#pragma once
// `pdctl doctor` live checks: what each node must have for the plan to run (node_needs), one probe per
// node over the executor (probe_nodes, the only function that touches a node), and the pure evaluation
// of the answers into findings (evaluate_live). IDs and rationale: docs/doctor.md, "Live checks".

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/doctor/facts.hpp"
#include "pdctl/doctor/probe.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/lint/finding.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::doctor {

struct LiveOptions {
    long long busy_gpu_mib = 1024;                      // memory used above this: the GPU is busy
    long long container_disk_kib = 50LL * 1024 * 1024;  // free space for images (docker runtime)
    long long state_disk_kib = 1LL * 1024 * 1024;       // free space for state_dir (logs, env files)
    double clock_warn_seconds = 1.0;
    double clock_error_seconds = 5.0;
    std::size_t max_parallel = 32;  // probe threads; SshExecutor bounds concurrent handshakes itself
};

// An RDMA device the config names: NCCL_IB_HCA (`mlx5_0`, `=mlx5_0:1`; NCCL matches names as
// prefixes unless `=`) or --disaggregation-ib-device (exact names).
struct HcaNeed {
    std::string source;  // "NCCL_IB_HCA" or "--disaggregation-ib-device"
    std::string role;
    std::string device;
    std::string port;  // "" = any port
    bool prefix = false;
};

// A socket interface list: NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME of a role.
struct IfnameNeed {
    std::string key;
    std::string role;
    std::string value;
};

struct ContainerNeed {
    std::string role;
    std::string cli;
    std::string image;
    bool never_pull = false;  // `--pull never` in the options: a missing image fails the start
};

// A file of `files:` that the node must hold (what `pdctl push` puts there).
struct FileNeed {
    std::string source;
    std::string dest;
    std::string sha256;  // of the local source; "" when it cannot be read here (presence is still checked)
};

// A model directory a rank loads (its --model-path), compared across the nodes that load it (FILE002).
struct ModelNeed {
    std::string role;
    std::string dir;
};

// A port a unit about to start will bind. Only the start preflight asks for these: on a running
// cluster the deployment's own units hold them.
struct PortNeed {
    std::string host;  // the address it binds; "" = every interface
    int port = 0;
    std::string unit;  // "prefill rank 2 (--port)"
};

// What the plan asks of one node.
// The py-spy `pdctl stack` runs for an sglang role here: on the host (process runtime), or inside the
// role's image (docker runtime).
struct StackToolNeed {
    std::string role;
    std::string program;  // the role's py_spy[0]
    std::string cli;      // empty: on the host
    std::string image;
};

struct NodeNeeds {
    config::Node node;
    std::vector<std::string> roles;  // roles with a unit here, in plan order
    std::string sglang_role;         // the first sglang role here ("" = no GPU work here)
    int gpus = 0;                    // its gpus_per_node
    // Every unit here is pdsim under the process runtime: the simulated cluster (profiles/local).
    bool pdsim_processes = false;
    bool rdma = false;          // an sglang role here moves KV or collectives over RDMA
    bool process_rdma = false;  // ... and runs as a plain process (the session's memlock applies)
    std::vector<std::string> containers_without_memlock;  // RDMA roles in containers lacking --ulimit memlock
    std::vector<HcaNeed> hcas;
    std::vector<IfnameNeed> ifnames;
    std::vector<ContainerNeed> containers;
    std::string state_dir;
    std::vector<FileNeed> files;
    std::vector<ModelNeed> models;
    std::vector<PortNeed> ports;             // the preflight's: must be free
    std::vector<StackToolNeed> stack_tools;  // doctor's, not a start's (the image check runs a container)
};

std::vector<NodeNeeds> node_needs(const config::Cluster& cluster, const plan::Plan& plan);
ProbeRequest probe_request(const NodeNeeds& needs);

// The node's clock against this machine's, from `date +%s.%N` and the round trip around it.
struct ClockSample {
    bool taken = false;
    double offset_seconds = 0;       // node minus local, at the middle of the round trip
    double uncertainty_seconds = 0;  // half the round trip
};

// One node's raw answers.
struct NodeProbe {
    std::string transport_error;  // the node could not be reached or authenticated
    bool timed_out = false;
    int exit_code = -1;
    std::string out;
    std::string err;
    ClockSample clock;
    bool files_probed = false;   // the node has FileNeeds and answered push's probe
    std::string files_out;       // that probe's output (push::parse_probe)
    bool models_probed = false;  // the node has ModelNeeds and answered their listing
    std::string models_out;      // that listing (parse_model_files)
};

// Runs the probe (then the clock sample) on every node in parallel, bounded by max_parallel.
// The only doctor function that touches nodes; results in the order of `needs`.
std::vector<NodeProbe> probe_nodes(const std::vector<NodeNeeds>& needs, exec::Executor& executor,
                                   const LiveOptions& options);

struct LiveResult {
    std::vector<lint::Finding> findings;  // in node order, then check order; cross-node checks last
    int checks = 0;                       // (check, node) pairs evaluated
    int checks_without_findings = 0;
    int nodes = 0;
    int unreachable = 0;  // nodes with a NET001 finding
};

// One live check: its ID and the reference its findings carry ("docs/doctor.md#<id>", then upstream
// URLs, joined by " · ").
struct LiveCheckInfo {
    std::string_view id;
    std::string_view reference;
};

// Every live check evaluate_live can report, in the order of docs/doctor.md's table.
const std::vector<LiveCheckInfo>& live_checks();

// Pure: findings from the needs and the answers (same order).
LiveResult evaluate_live(const std::vector<NodeNeeds>& needs, const std::vector<NodeProbe>& probes,
                         const LiveOptions& options = {});

// node_needs → probe_nodes → evaluate_live.
LiveResult run_live_checks(const config::Cluster& cluster, const plan::Plan& plan, exec::Executor& executor,
                           const LiveOptions& options = {});

}  // namespace pdctl::doctor

#pragma once
// `pdctl start --take-over`: on each planned node, what holds what pdctl's units need — a port they
// will bind, a GPU of a node that runs sglang ranks, or a role's image — without being pdctl's own unit
// of this cluster: the containers and processes of the deployment pdctl replaces (deploy_pd.sh's). The
// probe (doctor/scripts/takeover_probe.sh) only reads; the decision is pure and unit-tested.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::doctor {

// One node's answer to the take-over probe.
struct TakeoverFacts {
    struct Container {
        std::string id;  // full id
        std::string name;
        std::string image;
        std::string cluster_label;  // pdctl.cluster, "" for a container pdctl did not start
        int pid = 0;                // its main process
    };
    struct Listener {
        std::string host;  // the address it binds; 0.0.0.0 or :: for every interface
        int port = 0;
        int pid = 0;
    };
    struct GpuProcess {
        int pid = 0;
        long long mib = 0;
    };
    struct Process {
        int pid = 0;
        int ppid = 0;
        int pgid = 0;
        std::string comm;
        std::string container_id;  // from its cgroup; "" outside a container
    };
    std::vector<Container> containers;
    std::vector<Listener> listeners;
    std::vector<GpuProcess> gpu_processes;
    std::vector<Process> processes;  // the holders above and their ancestors
    std::vector<int> pdctl_groups;   // process groups of pdctl's own process units on the node
    bool complete = false;           // the probe reached its `end`
};

// `cli`: the container CLI of the node's roles ("" when they all run as processes); `node_dir`: pdctl's
// state directory on the node, where its process units' pid files are.
exec::Command takeover_probe_command(const std::string& cli, const std::string& node_dir);
TakeoverFacts parse_takeover_probe(const std::string& output);

// A container or process to stop before pdctl's units can start, and why.
struct ForeignHolder {
    std::string node;
    bool container = false;
    std::string id;     // a container's full id, or the pid
    std::string name;   // the container's name, or the process's command
    std::string image;  // containers only
    int pid = 0;        // the container's main process, or the process
    std::vector<std::string>
        reasons;  // "port 30000 (prefill rank 0 --port)", "GPU compute process (19592 MiB)", ...
};

// The foreign holders on `node`, in the order found: containers first, then processes.
std::vector<ForeignHolder> foreign_holders(const config::Cluster& cluster, const plan::Plan& plan,
                                           const std::string& node, const TakeoverFacts& facts);

}  // namespace pdctl::doctor

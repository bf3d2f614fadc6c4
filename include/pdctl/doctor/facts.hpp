#pragma once
// What the doctor's probe found on one node, and the pure parsers that read it: the probe's own line
// format (probe.hpp) and the two nvidia-smi CSV outputs it embeds. Pure data and pure functions, so
// every check can be tested with recorded outputs (tests/fixtures/).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::doctor {

// One line of `nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv,noheader,nounits`.
struct GpuMemory {
    int index = 0;
    long long used_mib = 0;
    long long total_mib = 0;
};

// One row of `nvidia-smi --query-compute-apps=pid,process_name,used_gpu_memory --format=csv`.
struct ComputeApp {
    std::string pid;
    std::string name;
    long long used_mib = -1;  // -1: nvidia-smi did not say ([N/A], [Not Supported])
};

// Parsed nvidia-smi answers; `error` says what did not parse (the line, as printed).
struct GpuQuery {
    std::vector<GpuMemory> gpus;
    std::string error;
};
struct AppsQuery {
    std::vector<ComputeApp> apps;
    std::string error;
};
GpuQuery parse_gpu_query(std::string_view csv);
AppsQuery parse_compute_apps(std::string_view csv);

struct IbPort {
    std::string device;  // mlx5_0
    std::string port;    // 1
    std::string state;   // as sysfs says it: "4: ACTIVE"
    bool active() const;
};

struct NetInterface {
    std::string name;
    std::string operstate;               // up, down, unknown, ...
    unsigned flags = 0;                  // IFF_* from sysfs (hex there)
    std::vector<std::string> addresses;  // its IPv4/IPv6 addresses (`ip -o addr`), without prefix length
    // "up", or "unknown" with IFF_UP: loopback and some virtual NICs never report "up".
    bool up() const;
};

struct ContainerCli {
    std::string cli;
    enum class State { Ok, Missing, Failing } state = State::Ok;
    std::string storage_root;  // where the runtime keeps images (docker DockerRootDir, podman GraphRoot)
    std::string error;         // Failing: the first lines of its stderr
};

struct ImageOnNode {
    std::string cli;
    std::string image;
    std::string id;     // empty when the image is missing
    std::string error;  // why inspect failed
};

// A program looked up on PATH, on the host (cli and image "-") or inside an image.
struct ProgramOnNode {
    std::string cli;
    std::string image;
    std::string name;
    std::string state;   // ok | missing | failing (the container did not run)
    std::string detail;  // ok: its path; failing: the error
};

struct DiskSpace {
    std::string path;  // as asked
    long long available_kib = 0;
    std::string mount;  // the file system's mount point
};

// A listening TCP socket (`ss -Htlnp`): its local address and port, and who holds it.
struct TcpListener {
    std::string host;  // "0.0.0.0", "::", "10.0.0.1" (no brackets, no %interface)
    int port = 0;
    std::string holder;  // "python3 pid 432", or "" when ss could not say (not root)
};

struct NodeFacts {
    std::string kernel;   // uname -r
    std::string memlock;  // ulimit -l: "unlimited" or KiB
    bool peermem_loaded = false;

    bool gpu_probed = false;  // the probe was asked about GPUs
    bool nvidia_smi_found = false;
    int gpu_query_status = 0;    // nvidia-smi's exit code
    std::string gpu_query_text;  // its output (the CSV, or its error)
    int apps_query_status = 0;
    std::string apps_query_text;

    bool infiniband_class = false;  // <sysfs>/class/infiniband exists
    std::vector<std::string> ib_devices;
    std::vector<IbPort> ib_ports;
    std::vector<NetInterface> interfaces;
    bool addresses_known = false;   // `ip` answered: NetInterface::addresses are the node's addresses
    bool listeners_probed = false;  // the probe was asked for listening sockets
    bool listeners_known = false;   // ... and `ss` answered
    std::vector<TcpListener> listeners;
    std::vector<ContainerCli> clis;
    std::vector<ImageOnNode> images;
    std::vector<DiskSpace> disks;
    std::vector<ProgramOnNode> programs;

    const ContainerCli* find_cli(std::string_view cli) const;
    const NetInterface* find_interface(std::string_view name) const;
};

struct ParsedProbe {
    NodeFacts facts;
    std::string error;  // non-empty: the output is not a complete probe answer
};

// Reads the probe's output (one fact per line, fields separated by tabs; probe.hpp).
ParsedProbe parse_probe_output(std::string_view output);

// Kernel release "6.1.0-18-amd64" → {6, 1}; nullopt when it does not start with N.N.
std::optional<std::pair<int, int>> kernel_version(std::string_view release);

}  // namespace pdctl::doctor

#pragma once
// The validated cluster model: what the config files say, after every check has passed.
// Pure data. Produced by config::load_cluster(); consumed by plan/, lint/ and cli/.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pdctl::config {

using Duration = std::chrono::milliseconds;

// Where a value came from, for messages that point at the file.
struct SourceLocation {
    std::string file;
    int line = 0;    // 1-based; 0 = unknown
    int column = 0;  // 1-based; 0 = unknown
};

struct EnvVar {
    std::string key;
    std::string value;
    bool secret = false;  // key looks like a secret (*TOKEN*, *SECRET*, *PASSWORD*) or listed in `secrets:`
    SourceLocation where;
    std::string
        assumption;  // why this value is a site-specific guess (`# assumption: ...` above it); "" = a fact
};

// A value the config marks as assumed rather than known (`# assumption: WHY` above it in an env
// file): the seed documents do not give it, so the first real deployment must confirm it.
struct Assumption {
    std::string key;
    std::string why;
    SourceLocation where;
};

// `doctor: ignore:` entry: a rule the site has checked and accepts. Its findings are shown once, with
// the reason, instead of one by one, and no longer block a start (docs/doctor.md#acknowledging-a-rule).
struct AcknowledgedRule {
    std::string rule;      // a doctor rule or live check ID, e.g. PD014
    std::string reason;    // required: why it is safe on this site
    SourceLocation where;  // the entry's `rule:` value
};

// `doctor:` in the cluster file: what the doctor must know about the site.
struct DoctorSettings {
    std::vector<AcknowledgedRule> ignore;
    // NICs that carry management traffic (SSH, monitoring) and must never carry NCCL/Gloo (PD006);
    // the runbook's management network by default.
    std::vector<std::string> management_interfaces{"bond0"};
    SourceLocation management_where;  // the key's value, when the file sets it
};

// How pdctl talks SSH to a node (docs/ssh.md): its own libssh2 client (fast: one connection per node,
// no process per command), the system's OpenSSH client multiplexed over one ControlMaster per node
// (whatever the operator's `ssh` can do), or, by default, libssh2 unless `ssh -G` shows something
// only OpenSSH can do for that node.
enum class SshTransport { Auto, Libssh2, OpenSsh };

struct SshSettings {
    std::string user = "root";
    int port = 22;
    // Whether pdctl.yaml says so (`ssh: {user: ...}` under defaults or the node): a value written there
    // wins over ~/.ssh/config even when it equals the built-in default; an unwritten one gives way.
    bool user_given = false;
    bool port_given = false;
    // Whether the value is pdctl's word rather than its built-in default: written in the file, or (a
    // node built in code) different from the default.
    bool user_set() const { return user_given || user != "root"; }
    bool port_set() const { return port_given || port != 22; }
    std::string identity;  // path to a private key; empty = agent / default keys
    SshTransport transport = SshTransport::Auto;
};

struct Node {
    std::string name;
    std::string address;  // IP or hostname pdctl reaches the node at over SSH (the management network)
    SshSettings ssh;
    SourceLocation where;
    // `compute_address:`, the node's address on the network the ranks talk over (e.g. the bond1 IP):
    // what the programs bind and advertise (--host, --dist-init-addr, router URLs, bootstrap,
    // SGLANG_HOST_IP). Empty = the node has one address: `address`.
    std::string compute_address;

    // The address the programs bind and the other nodes reach: compute_address, else address.
    const std::string& compute() const { return compute_address.empty() ? address : compute_address; }
};

enum class RoleKind { MooncakeMaster, Sglang, Router, Generic };
enum class SglangMode { Prefill, Decode };
enum class RuntimeKind { Docker, Process };
// ssh: nodes by address over SSH; local: this machine (the simulated cluster); slurm: every role group
// is one SLURM job on the nodes the config names (docs/slurm.md), submitted from this machine.
enum class ExecutorKind { Ssh, Local, Slurm };
// The PD router program (docs/config.md `impl`): SGLang's Python MiniLB (`launch_router --mini-lb`,
// what the seed deployment runs), the Rust sglang-router (`launch_router` without it), or SMG, the
// gateway that grew out of it (`smg launch`). Each has its own command line and its own gate.
enum class RouterImpl { MiniLb, SglangRouter, Smg };
// How an SGLang server is started: `python3 -m sglang.launch_server` or `sglang serve` (same flags).
enum class SglangEntry { LaunchServer, Serve };

// What a role waits for from one of its dependencies before it starts (`depends_on` entry `gate:`).
//   Ready     the dependency's full readiness gate (the default, and every derived dependency)
//   Bootstrap prefill only: its rank-0 bootstrap server answers GET /health. That server starts
//             before the weights load, so this lets decode load in parallel with prefill.
//   Started   the dependency's units were launched; nothing is awaited.
enum class DependencyGate { Ready, Bootstrap, Started };

struct ContainerSettings {
    std::string cli = "docker";        // docker, podman, or a path
    std::string image;                 // required with the docker runtime
    std::vector<std::string> options;  // extra `docker run` options, e.g. --network host
};

// A readiness gate: an HTTP GET that must return `expect_status` before the next stage starts.
struct HealthGate {
    std::string path;  // empty = the role kind's default (/health, /readiness, ...)
    int port = 0;      // 0 = the role kind's default port
    int expect_status = 200;
    Duration deadline{0};  // 0 = the role kind's default
    Duration interval{0};  // 0 = the role kind's default
};

// `stall_after:` when neither the role nor `defaults:` says.
inline constexpr Duration kDefaultStallAfter{std::chrono::minutes(5)};

// SGLang's --disaggregation-bootstrap-port when none is given.
inline constexpr int kSglangBootstrapPort = 8998;

struct Role {
    std::string name;  // unique: the `roles:` key, or for its groups after the first NAME-K
    // A `roles:` entry with `groups:` (sglang only) is one Role per group, each with its own rank 0,
    // --dist-init-addr and bootstrap server, sharing every other setting. The first group keeps the
    // entry's name, so adding groups to a running role leaves its first group running; group K is
    // NAME-K. A reference to the entry's name (depends_on, a router's lists, files) means every group.
    std::string config_role;  // the `roles:` key; empty = name (a Role built in code)
    int group = 1;            // 1-based, within config_role
    int groups = 1;           // how many groups config_role has
    RoleKind kind = RoleKind::Generic;
    std::optional<SglangMode> mode;  // sglang only
    std::vector<std::string> nodes;  // node names; index = node rank
    std::vector<std::string> depends_on;
    bool depends_on_explicit = false;  // false: derived from the standard PD order
    // The depends_on entries that gate on less than full readiness, by role name; absent = Ready.
    std::map<std::string, DependencyGate> narrow_gates;

    // The program prefix; empty = the kind's real program (python3 -m sglang.launch_server, ...).
    // The local profile points this at pdsim so the plans differ only in the program.
    std::vector<std::string> program;
    std::vector<std::string> args;    // extra server args: YAML `args` then the profile's EXTRA_ARGS
    std::size_t extra_args_at = 0;    // where EXTRA_ARGS's words begin in `args` (= args.size(): none)
    SourceLocation extra_args_where;  // the EXTRA_ARGS line; file "" when no profile sets it
    std::vector<EnvVar> env;          // container/process environment, from the profile file(s) and `env:`
    std::string bootstrap;            // BOOTSTRAP shell command run before the server, "" = none
    std::vector<std::string> profile_files;

    std::string host;  // --host to bind; empty = the node's address
    int port = 0;      // HTTP/RPC port; 0 = kind default

    // mooncake-master
    int metrics_port = 0;  // 0 = 9003
    // The Mooncake release of mooncake_master, e.g. "0.3.12.post1": `version:`, else what the config shows
    // (its BOOTSTRAP's install, a Mooncake image's tag: mooncake_master_version.hpp); empty = unknown
    // (the flags every 0.3.x takes). The source says which, for the plan and the doctor.
    std::string mooncake_version;
    std::string mooncake_version_source;  // "version:", "BOOTSTRAP installs `...`", "image ..."; "" = unknown

    // sglang
    std::string model_path;
    int tp_size = 0;         // 0 = nodes * gpus_per_node
    int ep_size = 0;         // 0 = not passed
    int gpus_per_node = 0;   // 0 = defaults.gpus_per_node
    int bootstrap_port = 0;  // prefill only; 0 = kSglangBootstrapPort (effective_bootstrap_port())
    int dist_init_port = 0;  // 0 = 5000
    std::string transfer_backend = "mooncake";
    SglangEntry entry = SglangEntry::LaunchServer;

    // router
    RouterImpl router_impl = RouterImpl::MiniLb;
    std::string router_impl_reason;  // why this one when `impl:` was not given ("image lightseekorg/smg")
    std::vector<std::string> prefill_roles;  // names of sglang prefill roles
    std::vector<std::string> decode_roles;   // names of sglang decode roles

    // generic
    std::vector<std::string> command;  // full argv for kind generic

    std::vector<Assumption> assumptions;  // from its profile files

    HealthGate health;
    RuntimeKind runtime = RuntimeKind::Docker;
    ContainerSettings container;
    int stop_grace_seconds = 30;
    // sglang: how long a rank's log may stay quiet, while its group is not serving, before pdctl calls the
    // rank stalled (engine/stall.hpp).
    Duration stall_after{kDefaultStallAfter};
    // sglang: the py-spy program `pdctl stack` runs on the node or in the container (argv prefix; the
    // local profile's is pdsim's stand-in).
    std::vector<std::string> py_spy{"py-spy"};
    // `cache:` (sglang): the directory on each node whose per-role subdirectory keeps the compiled
    // kernels between starts (plan::CacheSpec); "" = none, each start compiles from nothing.
    std::string cache_dir;
    SourceLocation where;

    // The `roles:` key this group came from (its own name when the entry has no groups).
    const std::string& entry_name() const { return config_role.empty() ? name : config_role; }
    // "prefill group 2 of 3", or just the name for a role of one group.
    std::string describe_group() const;

    // The gate this role waits for from `dependency` (Ready unless depends_on narrowed it).
    DependencyGate gate_on(const std::string& dependency) const;
    // The port a prefill role's bootstrap server listens on: `bootstrap_port:`, else SGLang's default.
    // The plan, the router's worker list, the gates and the lint rules all use this one.
    int effective_bootstrap_port() const { return bootstrap_port ? bootstrap_port : kSglangBootstrapPort; }
};

// A file that `pdctl push` distributes to the nodes (the runbook's patch script and wheels).
struct FileSpec {
    std::string source;  // on the machine running pdctl; a relative path is resolved against the cluster file
    std::string dest;    // absolute path on the nodes
    int mode = 0644;
    // The nodes that get it: every node of `roles` plus every node in `nodes`; both empty = every node.
    std::vector<std::string> roles;
    std::vector<std::string> nodes;
    SourceLocation where;         // the list entry
    SourceLocation source_where;  // the `source:` value, for "cannot read" errors
};

// `slurm:` (executor: slurm): what every role group's job asks of SLURM besides its nodes.
struct SlurmSettings {
    std::string partition;   // sbatch --partition; empty: the cluster's default partition
    std::string account;     // --account; empty: the user's default account
    Duration time_limit{0};  // --time, in whole minutes rounded up; 0: the partition's limit
    std::string gres;        // --gres per node, e.g. gpu:8 or gpu:h100:8; empty: none
    // More sbatch arguments, as argv words (["--qos=high", "--reservation", "pd"]); never those pdctl
    // sets itself (job name, nodes, output, exclusive...): the loader refuses them.
    std::vector<std::string> sbatch_options;
    // Job scripts and per-rank logs: a directory every node and this machine see (shared file
    // system); default <state_dir>/<cluster>/slurm.
    std::string output_dir;
    // `nodes: from-allocation`: the SLURM allocation (its job id) pdctl runs in. Each role group is then
    // a step of it (srun --jobid) instead of a job of its own; empty: one sbatch job per group.
    std::string allocation;
    std::string allocation_nodelist;  // $SLURM_JOB_NODELIST as it was read, for plans and messages
    SourceLocation where;             // the `slurm:` block, or the `executor:` line without one
};

// One file the loader read (the cluster file, an env file, a profile), as it read it: what is kept of a
// run's config, so that the same files can be read again (`pdctl config show|restore`, `rollback`).
struct SourceFile {
    std::string path;  // as the loader named it (resolved against the cluster file)
    std::string content;
};

struct Cluster {
    std::string name;
    std::string config_path;  // the cluster file, as given
    ExecutorKind executor = ExecutorKind::Ssh;
    SlurmSettings slurm;  // executor: slurm only
    // Where the process runtime keeps pid/log/state files and container env files on every node.
    std::string state_dir = "/var/lib/pdctl";
    // The node holding the deploy lock and the journal (`coordinator:`); the loader sets the first
    // node when the file does not say. Empty only in a Cluster built in code: then the first node.
    std::string coordinator;
    std::vector<Node> nodes;
    std::vector<Role> roles;              // in file order; plan/ orders them by dependencies
    std::vector<FileSpec> files;          // `files:`, in file order
    std::vector<Assumption> assumptions;  // from the shared env_files (config.env)
    std::vector<EnvVar> shared_env;  // the env_files keys (config.env): only ${VAR} in profiles reads them
    std::vector<std::string> env_references;  // every key a $VAR/${VAR} of any env file or profile read
    DoctorSettings doctor;                    // `doctor:`
    // `drills: allowed`: `pdctl drill` may break this deployment on purpose. Absent (or `refused`) on
    // anything in production, so that a drill aimed at the wrong file is refused.
    bool drills_allowed = false;
    // Every file the config was read from, in the order it was read, the cluster file first (not the
    // `files:` sources: those are pushed, and kept as a digest).
    std::vector<SourceFile> sources;

    const Node* find_node(const std::string& name) const;
    const Role* find_role(const std::string& name) const;
    // executor: slurm: where the groups' jobs go, seen by every node and this machine
    // (config::slurm_output_dir); empty under the other executors, which start units one by one. The
    // plan's runtimes follow from it, so that nothing past config/ asks which executor runs.
    std::string slurm_job_dir() const;
    // executor: local: every node is this machine, so a loopback address reaches every peer.
    bool nodes_share_this_machine() const;
};

std::string to_string(RoleKind kind);
std::string to_string(SglangMode mode);
std::string to_string(RuntimeKind kind);
std::string to_string(ExecutorKind kind);
std::string to_string(SshTransport transport);
std::string to_string(DependencyGate gate);
std::string to_string(RouterImpl impl);

}  // namespace pdctl::config

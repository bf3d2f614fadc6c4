#pragma once
// A Plan is pure data: which unit runs on which node, with the exact commands, in which stage order,
// behind which gates. `pdctl plan` prints it; the engine executes it; golden tests pin it.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/runtime/slurm_job.hpp"
#include "pdctl/runtime/unit_spec.hpp"

namespace pdctl::plan {

using Duration = std::chrono::milliseconds;

// How many lines of a unit's log status reads to tell its start-up phase.
inline constexpr int kActivityTailLines = 300;

// One role instance on one node: its spec (the types runtime/ consumes, runtime/unit_spec.hpp), where it
// is reached, and the exact commands for it. Every command pdctl sends about a unit is built here, once,
// by the plan builder; what takes a parameter only known later (a log read --since, a longer tail) is
// asked of `runtime`, which the builder made for this unit on its node.
struct Unit : runtime::UnitSpec {
    std::string address;          // the node's SSH/management address: what messages name
    std::string compute_address;  // where its programs bind and peers reach them (Node::compute())
    std::string node_dir;         // its state directory on the node (config::node_state_dir)
    exec::Command start;  // exact command, env file content on stdin; empty under SLURM (the job starts it)
    std::vector<std::string> run;  // what the unit runs, word for word (the BOOTSTRAP wrapper included)
    exec::Command stop;
    std::string stop_description;  // one line for plans
    exec::Command logs;            // last lines of the unit's log
    exec::Command log_activity;    // kActivityTailLines of its log and the node's clock (status)
    exec::Command inspect;         // lists every unit of the cluster of its runtime on its node
    exec::Command stack;           // sglang units: py-spy of its program (`pdctl stack`); empty otherwise
    // Its runtime on its node: the commands with a parameter, and the parsers of every answer.
    std::shared_ptr<const runtime::Runtime> runtime;
};

// One HTTP check of a gate, made from the machine running pdctl.
enum class CheckKind {
    Status,        // GET url answers expect_status
    ServiceReady,  // GET url answers 200, and a JSON body with `service_ready` says true (Mooncake master)
    Workers,       // GET url (a router's /workers) lists every one of `workers`, each healthy
    Generate,      // POST url (a router's /generate) with one output token answers 200 with text
};

struct GateCheck {
    CheckKind kind = CheckKind::Status;
    std::string url;
    int expect_status = 200;
    std::vector<std::string> workers;  // Workers: the prefill and decode URLs the router was given
    std::string why;                   // one line for the plan
};

// An HTTP readiness condition checked from the machine running pdctl: every check, in order, in one
// round; the first that fails is the gate's answer.
struct Gate {
    std::string url;  // http://address:port/path: the first check's (status and plans show it)
    int expect_status = 200;
    Duration deadline{0};
    Duration interval{0};
    std::string node;  // which node answers (rank 0 for groups)
    std::string why;   // one line for the plan: "rank0 /health == 200"
    // Empty: one Status check of url/expect_status. The router's gates add /workers and /generate.
    std::vector<GateCheck> checks;
    std::string caveat;  // why a weaker answer is not enough, for the plan ("MiniLB's /health is ...")
    // How `deadline` was chosen when past starts were consulted (timeline/start_history.hpp): "learned
    // from 7 starts: ..."; empty when the configured deadline stands and nothing was known.
    std::string deadline_note;

    // Learned from past starts (timeline::apply_quick_windows): between `quick_from` and `quick_until`
    // after its stage began, the gate has passed in every recorded start, so it is probed every
    // quick_interval() there instead of every `interval`, and the pass is seen that much sooner. Both
    // zero: no window.
    Duration quick_from{0};
    Duration quick_until{0};

    // `checks`, or the one Status check that an empty list means.
    std::vector<GateCheck> effective_checks() const;
    // A fifth of `interval`, and never below 50 ms.
    Duration quick_interval() const;
    // The interval to wait after a probe made `since_begin` after the stage began.
    Duration probe_interval(Duration since_begin) const;
};

using GateKind = config::DependencyGate;

// One dependency of a stage and what the stage waits for from it before it starts.
struct Edge {
    std::string role;  // the stage depended on
    GateKind kind = GateKind::Ready;
    // Ready: a copy of that stage's own gate. Bootstrap: GET of its rank-0 bootstrap server's
    // /health. Started: empty (url ""); nothing is probed.
    Gate gate;
};

// A prefill or decode group as a router is given it: what a run-time worker API (SMG, the gateway:
// POST /workers, DELETE /workers/{id}) takes to remove it and add it back.
struct RouterWorker {
    std::string stage;                  // the group's stage ("decode-2")
    std::string url;                    // its rank-0 URL, as on the router's command line
    std::string type;                   // "prefill" or "decode" (SMG's worker_type)
    std::optional<int> bootstrap_port;  // prefill only
};

// What a router stage knows of its workers.
struct RouterFacts {
    config::RouterImpl impl = config::RouterImpl::MiniLb;
    std::string url;  // http://address:port, its base URL
    std::vector<RouterWorker> workers;
    // MiniLB's list is fixed at launch; sglang-router and SMG take workers out and in at run time.
    bool worker_api() const { return impl != config::RouterImpl::MiniLb; }
    const RouterWorker* find_worker(const std::string& stage) const;  // null if the router has no such group
};

struct Stage {
    std::string role;  // the role's unique name; for a group after the first, NAME-K
    // Its place among the groups of its `roles:` entry (config::Role): group 1 of 1 for most roles.
    std::string config_role;
    int group = 1;
    int groups = 1;
    config::RoleKind kind = config::RoleKind::Generic;
    std::string mode;         // prefill/decode for sglang, "" otherwise
    std::vector<Edge> edges;  // its dependencies, in depends_on order
    runtime::RuntimeSpec runtime;
    std::vector<Unit> units;  // ordered by rank
    Gate gate;                // its own readiness
    std::string
        program_note;  // which program and why, when the config let pdctl choose ("router minilb: ...")
    std::optional<RouterFacts> router;  // router stages only
    // sglang stages: a rank whose log is quiet this long while the group is not serving is stalled;
    // 0 for the other kinds (their one process has an HTTP check of its own).
    Duration stall_after{0};
    std::vector<std::string> py_spy;  // sglang stages: the py-spy argv prefix `pdctl stack` runs
    // executor: slurm: the group's one job, which starts and stops every unit (runtime/slurm_job.hpp).
    std::optional<runtime::SlurmJob> slurm;

    std::vector<std::string> after() const;  // the roles of `edges`
    // Of what its units run (their fingerprints), not of its gate: past starts of a stage with the same
    // fingerprint are comparable (learned deadlines, pace warnings; timeline/start_history.hpp).
    std::string fingerprint() const;
    // What this stage waits for from an earlier stage `dependency` (a role name): its edge's kind, or
    // Ready when there is no edge (stages without a dependency between them still run one after the other).
    GateKind waits_for(const std::string& dependency) const;
};

struct Plan {
    std::string cluster;
    std::string config_path;
    std::string fingerprint;  // of the whole plan, for the header line
    config::ExecutorKind executor = config::ExecutorKind::Ssh;
    std::vector<config::Node> nodes;
    std::vector<Stage> stages;  // start order; stop is the exact reverse

    const Stage* find_stage(const std::string& role) const;
};

}  // namespace pdctl::plan

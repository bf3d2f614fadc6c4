#include "pdctl/plan/builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pdctl/config/names.hpp"
#include "pdctl/config/state_paths.hpp"
#include "pdctl/plan/kernel_cache.hpp"
#include "pdctl/plan/role_kinds.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/fingerprint.hpp"
#include "pdctl/util/shell_quote.hpp"

namespace pdctl::plan {
namespace {

// Kahn's algorithm, always taking the first ready role in file order: the plan is deterministic and
// keeps the operator's order wherever dependencies allow it.
std::vector<const config::Role*> order_roles(const config::Cluster& cluster) {
    std::vector<const config::Role*> ordered;
    std::set<std::string> placed;
    while (ordered.size() < cluster.roles.size()) {
        const config::Role* next = nullptr;
        for (const auto& role : cluster.roles) {
            if (placed.count(role.name)) continue;
            bool ready = true;
            for (const auto& dep : role.depends_on) ready = ready && placed.count(dep) > 0;
            if (ready) {
                next = &role;
                break;
            }
        }
        if (!next) throw Failure(ExitCode::kUsage, "the roles' depends_on form a cycle");
        placed.insert(next->name);
        ordered.push_back(next);
    }
    return ordered;
}

runtime::ProgramSpec program_for(const config::Cluster& cluster, const config::Role& role, int rank) {
    switch (role.kind) {
        case config::RoleKind::MooncakeMaster:
            return mooncake_master_program(cluster, role, rank);
        case config::RoleKind::Sglang:
            return sglang_program(cluster, role, rank);
        case config::RoleKind::Router:
            return router_program(cluster, role, rank);
        case config::RoleKind::Generic:
            return generic_program(cluster, role, rank);
    }
    return {};
}

runtime::RuntimeSpec runtime_for(const config::Cluster& cluster, const config::Role& role) {
    runtime::RuntimeSpec spec;
    spec.kind = role.runtime;
    if (role.runtime == config::RuntimeKind::Docker) {
        spec.cli = role.container.cli;
        spec.image = role.container.image;
        spec.options = role.container.options;
    }
    spec.state_dir = cluster.state_dir;
    spec.stop_grace_seconds = role.stop_grace_seconds;
    spec.slurm_dir = cluster.slurm_job_dir();
    spec.slurm_allocation = cluster.slurm.allocation;
    return spec;
}

// Everything that defines what runs, so a change anywhere shows as drift. Secret values are left out
// (only their keys count): the fingerprint is stored on nodes and printed.
std::string unit_fingerprint(const runtime::ProgramSpec& program, const runtime::RuntimeSpec& runtime,
                             const runtime::CacheSpec& cache) {
    std::string text = util::join_command(program.argv) + "\n" + program.bootstrap + "\n";
    for (const auto& env : program.env)
        text += env.key + "=" + (env.secret ? std::string("<secret>") : env.value) + "\n";
    text += config::to_string(runtime.kind) + "\n" + runtime.cli + "\n" + runtime.image + "\n";
    text += util::join_command(runtime.options);
    if (cache.enabled()) text += "\ncache " + cache.dir;  // the mount is not among the options
    return util::short_fingerprint(text);
}

// The dependency is ordered before `role`, so its stage is already in the plan.
Edge edge_to(const config::Cluster& cluster, const config::Role& role, const config::Role& dependency,
             const Plan& plan) {
    Edge edge{dependency.name, role.gate_on(dependency.name), {}};
    switch (edge.kind) {
        case GateKind::Ready:
            edge.gate = plan.find_stage(dependency.name)->gate;
            break;
        case GateKind::Bootstrap:
            edge.gate = bootstrap_gate(cluster, dependency);
            break;
        case GateKind::Started:
            edge.gate.why = "units launched";
            break;
    }
    return edge;
}

// The group's one job, when its runtime starts groups rather than units (SLURM). Its units' stop and log
// commands come from that runtime: stopping one stops the job, and the ranks' logs are in its directory on
// the shared file system, read from this machine.
void add_group_job(const config::Cluster& cluster, const config::Role& role, Stage& stage) {
    if (stage.units.empty()) return;
    const std::vector<runtime::UnitSpec> ranks(stage.units.begin(), stage.units.end());
    runtime::SlurmPlacement placement;
    placement.gpus = role.kind == config::RoleKind::Sglang;
    placement.exclusive =
        std::none_of(cluster.roles.begin(), cluster.roles.end(), [&](const config::Role& other) {
            return other.name != role.name &&
                   std::any_of(other.nodes.begin(), other.nodes.end(), [&](const auto& node) {
                       return std::find(role.nodes.begin(), role.nodes.end(), node) != role.nodes.end();
                   });
        });
    stage.slurm = stage.units.front().runtime->group_job(cluster.slurm, role.name, ranks, stage.fingerprint(),
                                                         placement);
}

}  // namespace

std::string Stage::fingerprint() const {
    std::string all;
    for (const auto& unit : units) all += unit.name + "=" + unit.fingerprint + "\n";
    return util::short_fingerprint(all);
}

std::vector<std::string> Stage::after() const {
    std::vector<std::string> roles;
    for (const auto& edge : edges) roles.push_back(edge.role);
    return roles;
}

GateKind Stage::waits_for(const std::string& dependency) const {
    for (const auto& edge : edges)
        if (edge.role == dependency) return edge.kind;
    return GateKind::Ready;
}

const RouterWorker* RouterFacts::find_worker(const std::string& stage) const {
    for (const auto& worker : workers)
        if (worker.stage == stage) return &worker;
    return nullptr;
}

const Stage* Plan::find_stage(const std::string& role) const {
    for (const auto& stage : stages)
        if (stage.role == role) return &stage;
    return nullptr;
}

Plan build_plan(const config::Cluster& cluster) {
    Plan plan;
    plan.cluster = cluster.name;
    plan.config_path = cluster.config_path;
    plan.executor = cluster.executor;
    plan.nodes = cluster.nodes;

    std::string all_fingerprints;
    for (const auto* role : order_roles(cluster)) {
        Stage stage;
        stage.role = role->name;
        stage.config_role = role->entry_name();
        stage.group = role->group;
        stage.groups = role->groups;
        stage.kind = role->kind;
        if (role->mode) stage.mode = config::to_string(*role->mode);
        stage.runtime = runtime_for(cluster, *role);
        stage.gate = default_gate(cluster, *role);
        if (role->kind == config::RoleKind::Sglang) {
            stage.stall_after = role->stall_after;
            stage.py_spy = role->py_spy;
        }
        if (role->kind == config::RoleKind::MooncakeMaster) stage.program_note = mooncake_master_note(*role);
        if (role->kind == config::RoleKind::Router) {
            stage.program_note =
                "router " + config::to_string(role->router_impl) +
                (role->router_impl_reason.empty() ? " (impl: " + config::to_string(role->router_impl) + ")"
                                                  : " (" + role->router_impl_reason + ")");
            stage.router = router_facts(cluster, *role);
        }
        for (const auto& dependency : role->depends_on)
            stage.edges.push_back(edge_to(cluster, *role, *cluster.find_role(dependency), plan));
        for (std::size_t rank = 0; rank < role->nodes.size(); ++rank) {
            const auto* node = cluster.find_node(role->nodes[rank]);
            Unit unit;
            unit.name = config::unit_name(cluster.name, role->name, static_cast<int>(rank));
            unit.cluster = cluster.name;
            unit.role = role->name;
            unit.node = node->name;
            unit.address = node->address;
            unit.compute_address = node->compute();
            unit.rank = static_cast<int>(rank);
            unit.program = program_for(cluster, *role, unit.rank);
            unit.cache = kernel_cache_for(cluster, *role, unit.program, stage.runtime);
            if (unit.cache.enabled()) {
                const auto env = kernel_cache_env(
                    unit.cache.mount.empty() ? unit.cache.dir : unit.cache.mount, unit.program);
                unit.program.env.insert(unit.program.env.end(), env.begin(), env.end());
            }
            unit.fingerprint = unit_fingerprint(role->kind == config::RoleKind::Router
                                                    ? router_launch_identity(cluster, *role, unit.rank)
                                                    : unit.program,
                                                stage.runtime, unit.cache);
            unit.node_dir = config::node_state_dir(cluster.state_dir, cluster.name, node->name);
            const std::shared_ptr<const runtime::Runtime> runtime =
                runtime::make_runtime(stage.runtime, unit.node_dir);
            unit.start = runtime->start(unit);  // empty under SLURM: the group's job starts it
            unit.run = runtime->run_words(unit, unit.start);
            unit.stop = runtime->stop(unit.name);
            unit.stop_description = runtime->describe_stop(unit.name);
            unit.logs = runtime->logs(unit.name, 20);
            unit.log_activity = runtime->log_activity(unit.name, kActivityTailLines);
            unit.inspect = runtime->inspect(cluster.name);
            if (stage.kind == config::RoleKind::Sglang)
                unit.stack = runtime->python_stack(unit.name, stage.py_spy);
            unit.runtime = runtime;
            all_fingerprints += unit.fingerprint;
            stage.units.push_back(std::move(unit));
        }
        add_group_job(cluster, *role, stage);
        plan.stages.push_back(std::move(stage));
    }
    plan.fingerprint = util::short_fingerprint(all_fingerprints).substr(0, 7);
    return plan;
}

}  // namespace pdctl::plan

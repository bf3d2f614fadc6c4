#include "pdctl/config/detail/slurm_loader.hpp"

#include <algorithm>
#include <array>
#include <regex>

#include "pdctl/util/strings.hpp"

namespace pdctl::config::detail {
namespace {

// What pdctl itself passes to sbatch for a role group's job: the job is found again by its name and
// comment, placed on the group's nodes, and writes where the per-rank logs are read.
constexpr std::array<std::string_view, 22> kOwnedOptions = {"-J",
                                                            "--job-name",
                                                            "-N",
                                                            "--nodes",
                                                            "-w",
                                                            "--nodelist",
                                                            "-n",
                                                            "--ntasks",
                                                            "-o",
                                                            "--output",
                                                            "-e",
                                                            "--error",
                                                            "--wrap",
                                                            "--comment",
                                                            "--parsable",
                                                            "--exclusive",
                                                            "-D",
                                                            "--chdir",
                                                            "--ntasks-per-node",
                                                            "-p",
                                                            "--partition",
                                                            "--gres"};

// "--nodes=4" and "-N4" name --nodes/-N as well.
std::string_view option_name(std::string_view word) {
    if (word.rfind("--", 0) == 0) return word.substr(0, word.find('='));
    if (word.size() > 2 && word[0] == '-') return word.substr(0, 2);
    return word;
}

std::vector<std::string> node_names(const std::vector<Node>& nodes) {
    std::vector<std::string> names;
    for (const auto& node : nodes) names.push_back(node.name);
    return names;
}

bool is_slurm_name(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '-' || c == '.';
    });
}

}  // namespace

RuntimeKind default_runtime(ExecutorKind executor) {
    return executor == ExecutorKind::Slurm ? RuntimeKind::Process : RuntimeKind::Docker;
}

void read_slurm(const LoadContext& ctx, const MapReader& top, Cluster& cluster) {
    auto& slurm = cluster.slurm;
    const auto* entry = top.find("slurm");
    if (const auto* executor = top.find("executor")) slurm.where = executor->value_where;
    if (!entry) return;
    slurm.where = entry->value_where;
    if (cluster.executor != ExecutorKind::Slurm) {
        ctx.yaml.error(entry->key_where, "slurm", "`slurm:` is only read with `executor: slurm`",
                       "set `executor: slurm`, or remove the block");
        return;
    }
    MapReader map(ctx.yaml, entry->value, "slurm", entry->value_where);
    if (!map.is_map()) return;
    map.check_keys({"partition", "account", "time_limit", "gres", "sbatch_options", "output_dir"});
    for (const auto* key : {"partition", "account"}) {
        std::string& out = std::string(key) == "partition" ? slurm.partition : slurm.account;
        if (map.string(key, out) && !is_slurm_name(out))
            ctx.yaml.error(map.find(key)->value_where, map.child_path(key),
                           "invalid " + std::string(key) + " name `" + out + "`",
                           "letters, digits, `_`, `-` and `.`");
    }
    map.duration("time_limit", slurm.time_limit);  // a zero or negative one is the reader's error
    static const std::regex gres(R"([A-Za-z][A-Za-z0-9_]*(:[A-Za-z0-9_.-]+)?:[1-9][0-9]*)");
    if (map.string("gres", slurm.gres) && !std::regex_match(slurm.gres, gres))
        ctx.yaml.error(map.find("gres")->value_where, map.child_path("gres"),
                       "invalid gres `" + slurm.gres + "`",
                       "NAME[:TYPE]:COUNT per node, e.g. gpu:8 or gpu:h100:8");
    std::vector<Item> options;
    map.items("sbatch_options", options);
    for (std::size_t i = 0; i < options.size(); ++i) {
        const auto name = option_name(options[i].value);
        if (std::find(kOwnedOptions.begin(), kOwnedOptions.end(), name) != kOwnedOptions.end()) {
            ctx.yaml.error(options[i].where, "slurm.sbatch_options[" + std::to_string(i) + "]",
                           "pdctl sets `" + std::string(name) + "` itself",
                           name == "-p" || name == "--partition" ? "use slurm.partition"
                           : name == "--gres"                    ? "use slurm.gres"
                                              : "it places each group's job and finds it again "
                                                "by name (docs/slurm.md)");
        }
        slurm.sbatch_options.push_back(options[i].value);
    }
    if (map.string("output_dir", slurm.output_dir) && slurm.output_dir.rfind('/', 0) != 0)
        ctx.yaml.error(map.find("output_dir")->value_where, map.child_path("output_dir"),
                       "must be an absolute path", "a directory every node and this machine see");
}

bool read_allocation_nodes(const LoadContext& ctx, const MapReader& top, Cluster& cluster) {
    const auto* entry = top.find("nodes");
    if (!entry || !entry->value.IsScalar() || entry->value.Scalar() != "from-allocation") return false;
    const auto& where = entry->value_where;
    if (cluster.executor != ExecutorKind::Slurm) {
        ctx.yaml.error(where, "nodes", "`nodes: from-allocation` needs `executor: slurm`",
                       "list the nodes: - {name: n1, address: 10.0.0.1}");
        return true;
    }
    // The allocation was made with its own partition, account, time and options: a group's step gets
    // its nodes from it, so these would silently do nothing.
    const std::pair<const char*, bool> unused[] = {{"partition", !cluster.slurm.partition.empty()},
                                                   {"account", !cluster.slurm.account.empty()},
                                                   {"time_limit", cluster.slurm.time_limit.count() > 0},
                                                   {"sbatch_options", !cluster.slurm.sbatch_options.empty()}};
    for (const auto& [key, set] : unused)
        if (set)
            ctx.yaml.error(cluster.slurm.where, std::string("slurm.") + key,
                           std::string("`") + key + "` does nothing with `nodes: from-allocation`",
                           "the allocation (salloc/sbatch) already has it: give it there");
    if (!ctx.allocation) {
        ctx.yaml.error(where, "nodes", "`nodes: from-allocation`, but no SLURM allocation can be read here");
        return true;
    }
    SlurmAllocation allocation;
    try {
        allocation = ctx.allocation();
    } catch (const std::exception& e) {
        ctx.yaml.error(where, "nodes", std::string("`nodes: from-allocation`: ") + e.what(),
                       "run pdctl inside the allocation: salloc -N8 … pdctl start, or in an sbatch script");
        return true;
    }
    cluster.slurm.allocation = allocation.job_id;
    cluster.slurm.allocation_nodelist = allocation.nodelist;
    for (const auto& allocated : allocation.nodes) {
        Node node;
        node.name = allocated.name;
        node.address = allocated.address;
        node.where = where;
        if (!is_valid_name(node.name))
            ctx.yaml.error(where, "nodes",
                           "the allocation's node `" + node.name + "` has no name pdctl can use", kNameRule);
        cluster.nodes.push_back(std::move(node));
    }
    if (cluster.nodes.empty()) ctx.yaml.error(where, "nodes", "the allocation lists no node");
    return true;
}

std::vector<Item> allocation_items(const LoadContext& ctx, const std::vector<Item>& items,
                                   const std::vector<Node>& nodes, const std::string& path) {
    if (!ctx.nodes_from_allocation) return items;
    static const std::regex position_syntax(R"(\d+(-\d+)?)");
    std::vector<Item> named;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto& item = items[i];
        if (!std::regex_match(item.value, position_syntax)) {
            named.push_back(item);
            continue;
        }
        const auto positions = allocation_positions(item.value);
        const auto item_path = path + "[" + std::to_string(i) + "]";
        if (positions.empty() || positions.front() == 0) {
            ctx.yaml.error(item.where, item_path, "`" + item.value + "` is no range of allocation positions",
                           "positions count from 1 in the allocation's order: 1-4, 5");
            continue;
        }
        for (const auto position : positions) {
            if (position > nodes.size()) {
                ctx.yaml.error(item.where, item_path,
                               "position " + std::to_string(position) + " is past the allocation's " +
                                   std::to_string(nodes.size()) + " nodes",
                               "the allocation holds " + util::join(node_names(nodes), ", "));
                break;
            }
            named.push_back({nodes[position - 1].name, item.where});
        }
    }
    return named;
}

void check_slurm_roles(const YamlContext& ctx, const Cluster& cluster) {
    if (cluster.executor != ExecutorKind::Slurm) return;
    std::vector<std::string> said;
    for (const auto& role : cluster.roles) {
        if (role.runtime != RuntimeKind::Docker) continue;
        const auto& key = role.entry_name();
        if (std::find(said.begin(), said.end(), key) != said.end()) continue;  // once per `roles:` key
        said.push_back(key);
        ctx.error(role.where, "roles." + key + ".runtime",
                  "runtime docker under `executor: slurm`: SLURM runs each rank as a job step",
                  "use `runtime: process` (containers under SLURM, e.g. pyxis/enroot, are not supported)");
    }
}

}  // namespace pdctl::config::detail

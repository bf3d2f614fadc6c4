#include "pdctl/config/detail/slurm_loader.hpp"

#include <algorithm>
#include <array>
#include <regex>

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

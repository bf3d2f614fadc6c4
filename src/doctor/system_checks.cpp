// SYS001-SYS002: what RDMA and the runtime need from the operating system. RDMA pins memory, which the
// memlock limit caps (Mooncake and NCCL registration fail with "Cannot allocate memory" under it);
// and a start that runs out of disk while pulling an image or writing logs fails late.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks.hpp"
#include "text.hpp"

namespace pdctl::doctor::detail {

bool check_memlock(const NodeInput& input, lint::FindingSink& sink) {
    if (!input.needs.rdma || input.simulated()) return false;
    const auto& node = input.needs.node.name;
    if (input.needs.process_rdma && input.facts.memlock != "unlimited")
        sink.add(
            lint::Severity::Warn, input.needs.sglang_role,
            fmt::format(
                "the memlock limit of processes started over SSH on {} is {} KiB, not unlimited: RDMA "
                "memory registration can fail",
                node, input.facts.memlock.empty() ? "unknown" : input.facts.memlock),
            "set `* - memlock unlimited` in /etc/security/limits.conf (with UsePAM yes in sshd_config) on "
            "the node");
    for (const auto& role : input.needs.containers_without_memlock)
        sink.add(lint::Severity::Warn, role,
                 fmt::format("containers of {} on {} get the daemon's default memlock limit: RDMA memory "
                             "registration can fail",
                             role, node),
                 "add `--ulimit, memlock=-1` to the role's container options in pdctl.yaml");
    return true;
}

bool check_disk_space(const NodeInput& input, lint::FindingSink& sink) {
    if (input.facts.disks.empty()) return false;
    // One verdict per file system, against the largest need on it.
    struct Need {
        long long available_kib = 0;
        long long wanted_kib = 0;
        std::vector<std::string> uses;
        std::string role;
    };
    std::map<std::string, Need> by_mount;
    for (const auto& disk : input.facts.disks) {
        std::string use = "state_dir " + disk.path;
        long long wanted = input.options.state_disk_kib;
        std::string role;
        for (const auto& cli : input.facts.clis) {
            if (cli.state != ContainerCli::State::Ok || cli.storage_root != disk.path) continue;
            use = fmt::format("{} storage {}", cli.cli, disk.path);
            wanted = input.options.container_disk_kib;
            for (const auto& container : input.needs.containers)
                if (container.cli == cli.cli) role = container.role;
        }
        auto& need = by_mount[disk.mount];
        need.available_kib = disk.available_kib;
        need.wanted_kib = std::max(need.wanted_kib, wanted);
        need.uses.push_back(use);
        if (need.role.empty()) need.role = role;
    }
    for (const auto& [mount, need] : by_mount) {
        if (need.available_kib >= need.wanted_kib) continue;
        sink.add(
            lint::Severity::Warn, need.role,
            fmt::format("{} free on {} ({}) on {}, less than {}", format_gib(need.available_kib), mount,
                        join(need.uses), input.needs.node.name, format_gib(need.wanted_kib)),
            "free space on the node (`docker system prune` removes unused images; old logs under state_dir), "
            "or move the storage to a larger disk");
    }
    return true;
}

}  // namespace pdctl::doctor::detail

namespace pdctl::doctor::detail {

// SYS004: `pdctl stack` runs py-spy where the ranks run. Found missing now, not during the incident
// that needs the stacks.
bool check_stack_tool(const NodeInput& input, lint::FindingSink& sink) {
    bool checked = false;
    for (const auto& tool : input.needs.stack_tools) {
        const std::string cli = tool.cli.empty() ? "-" : tool.cli;
        const std::string image = tool.cli.empty() ? "-" : tool.image;
        const auto found = std::find_if(input.facts.programs.begin(), input.facts.programs.end(),
                                        [&](const ProgramOnNode& p) {
                                            return p.cli == cli && p.image == image && p.name == tool.program;
                                        });
        if (found == input.facts.programs.end()) continue;  // the image is not there: CTR002 says so
        checked = true;
        const auto& node = input.needs.node.name;
        const std::string where = tool.cli.empty() ? "on " + node : "in image " + tool.image + " on " + node;
        if (found->state == "missing")
            sink.add(lint::Severity::Warn, tool.role,
                     fmt::format("`{}` is not on PATH {}: `pdctl stack` cannot dump {}'s ranks", tool.program,
                                 where, tool.role),
                     tool.cli.empty()
                         ? "install py-spy on the node (`pip install py-spy`), or set the role's "
                           "`py_spy:` to where it is"
                         : "add py-spy to the image (`pip install py-spy`), or set the role's "
                           "`py_spy:` to its path in the image");
        else if (found->state == "failing")
            sink.add(lint::Severity::Warn, tool.role,
                     fmt::format("could not look for `{}` {}: {}", tool.program, where, found->detail),
                     "run `" + tool.cli + " run --rm --entrypoint sh " + tool.image +
                         " -c 'command -v py-spy'` on the node to see why");
    }
    return checked;
}

}  // namespace pdctl::doctor::detail

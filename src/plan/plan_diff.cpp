#include "pdctl/plan/plan_diff.hpp"

#include <algorithm>
#include <map>

#include "pdctl/config/secret_flags.hpp"

namespace pdctl::plan {
namespace {

std::vector<std::string> node_names(const Stage& stage) {
    std::vector<std::string> nodes;
    for (const auto& unit : stage.units) nodes.push_back(unit.node);
    return nodes;
}

std::map<std::string, std::string> flag_map(const ParsedCommandLine& line) {
    std::map<std::string, std::string> flags;
    for (const auto& [flag, value] : line.flags) {
        auto [at, inserted] = flags.emplace(flag, value);
        if (!inserted) at->second += " " + value;
    }
    return flags;
}

bool is_secret(const std::string& value, const std::vector<std::string>& secrets) {
    return !value.empty() && std::find(secrets.begin(), secrets.end(), value) != secrets.end();
}

std::vector<FlagChange> flag_changes(const std::vector<std::string>& before_argv,
                                     const std::vector<std::string>& after_argv) {
    const auto before = flag_map(parse_command_line(before_argv));
    const auto after = flag_map(parse_command_line(after_argv));
    const auto secrets_before = config::secret_flag_values(before_argv);
    const auto secrets_after = config::secret_flag_values(after_argv);
    std::vector<FlagChange> changes;
    auto b = before.begin();
    auto a = after.begin();
    // Both maps are sorted by flag: one merge walk.
    while (b != before.end() || a != after.end()) {
        FlagChange change;
        if (a == after.end() || (b != before.end() && b->first < a->first)) {
            change = {b->first, true, b->second, false, "", false};
            ++b;
        } else if (b == before.end() || a->first < b->first) {
            change = {a->first, false, "", true, a->second, false};
            ++a;
        } else {
            if (b->second == a->second) {
                ++a;
                ++b;
                continue;
            }
            change = {a->first, true, b->second, true, a->second, false};
            ++a;
            ++b;
        }
        change.secret = is_secret(change.before, secrets_before) || is_secret(change.after, secrets_after);
        changes.push_back(std::move(change));
    }
    return changes;
}

std::vector<EnvChange> env_changes(const std::vector<runtime::EnvEntry>& before_env,
                                   const std::vector<runtime::EnvEntry>& after_env) {
    std::map<std::string, const runtime::EnvEntry*> before, after;
    for (const auto& entry : before_env) before[entry.key] = &entry;
    for (const auto& entry : after_env) after[entry.key] = &entry;
    std::vector<EnvChange> changes;
    for (const auto& [key, entry] : before) {
        const auto found = after.find(key);
        if (found == after.end()) {
            changes.push_back({key, true, entry->value, false, "", entry->secret});
        } else if (found->second->value != entry->value) {
            changes.push_back({key, true, entry->value, true, found->second->value,
                               entry->secret || found->second->secret});
        }
    }
    for (const auto& [key, entry] : after)
        if (!before.count(key)) changes.push_back({key, false, "", true, entry->value, entry->secret});
    std::sort(changes.begin(), changes.end(),
              [](const EnvChange& x, const EnvChange& y) { return x.key < y.key; });
    return changes;
}

}  // namespace

const char* to_string(GroupChange change) {
    switch (change) {
        case GroupChange::kSame:
            return "same";
        case GroupChange::kChanged:
            return "changed";
        case GroupChange::kAdded:
            return "added";
        case GroupChange::kRemoved:
            return "removed";
        case GroupChange::kRoleChanged:
            return "role changed";
    }
    return "?";
}

bool GroupDiff::spec_differs() const {
    return image_before != image_after || program_before != program_after || !flags.empty() || !env.empty() ||
           bootstrap_changed || nodes_before != nodes_after || mode_before != mode_after;
}

ParsedCommandLine parse_command_line(const std::vector<std::string>& argv) {
    ParsedCommandLine line;
    std::size_t i = 0;
    for (; i < argv.size() && argv[i].rfind("--", 0) != 0; ++i) line.program.push_back(argv[i]);
    while (i < argv.size()) {
        const std::string& word = argv[i];
        if (word.rfind("--", 0) != 0) {
            // A word after a flag's value: a second value of the flag before it (`--nodes a b`).
            if (!line.flags.empty()) line.flags.back().second += " " + word;
            ++i;
            continue;
        }
        if (const auto eq = word.find('='); eq != std::string::npos) {
            line.flags.emplace_back(word.substr(0, eq), word.substr(eq + 1));
            ++i;
        } else if (i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0) {
            line.flags.emplace_back(word, argv[i + 1]);
            i += 2;
        } else {
            line.flags.emplace_back(word, "");
            ++i;
        }
    }
    return line;
}

GroupDiff diff_stage(const Stage& running, const Stage& wanted) {
    GroupDiff diff;
    diff.stage = wanted.role;
    diff.mode_before = running.mode;
    diff.mode_after = wanted.mode;
    diff.nodes_before = node_names(running);
    diff.nodes_after = node_names(wanted);
    diff.image_before = running.runtime.image;
    diff.image_after = wanted.runtime.image;
    if (!running.units.empty() && !wanted.units.empty()) {
        const auto& before = running.units.front().program;
        const auto& after = wanted.units.front().program;
        diff.program_before = parse_command_line(before.argv).program;
        diff.program_after = parse_command_line(after.argv).program;
        diff.flags = flag_changes(before.argv, after.argv);
        // A router with a worker API: its workers are not part of its launch (router_launch_identity);
        // ops/diff.cpp compares the ones it lists.
        if (wanted.router && wanted.router->worker_api())
            diff.flags.erase(std::remove_if(diff.flags.begin(), diff.flags.end(),
                                            [](const FlagChange& flag) {
                                                return flag.flag == "--prefill" || flag.flag == "--decode" ||
                                                       flag.flag == "--worker-startup-timeout-secs";
                                            }),
                             diff.flags.end());
        diff.env = env_changes(before.env, after.env);
        diff.bootstrap_changed = before.bootstrap != after.bootstrap;
    }
    diff.change = diff.spec_differs() ? GroupChange::kChanged : GroupChange::kSame;
    return diff;
}

}  // namespace pdctl::plan

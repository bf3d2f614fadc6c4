#include "pdctl/report/stack_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pdctl/util/strings.hpp"

namespace pdctl::report {
namespace {

using nlohmann::json;

std::string ranks_of(const std::vector<const RankDump*>& ranks) {
    std::vector<std::string> numbers;
    for (const auto* dump : ranks) numbers.push_back(std::to_string(dump->rank));
    return fmt::format("rank{} {}", ranks.size() > 1 ? "s" : "", fmt::join(numbers, ","));
}

std::string nodes_of(const std::vector<const RankDump*>& ranks) {
    std::vector<std::string> nodes;
    for (const auto* dump : ranks) nodes.push_back(dump->node);
    return fmt::format("{}", fmt::join(nodes, ", "));
}

// The places of `fold` that `other` does not have: what tells the two apart.
std::vector<std::string> distinct(const StackFold& fold, const StackFold& other) {
    std::vector<std::string> out;
    for (const auto& place : fold.places)
        if (std::find(other.places.begin(), other.places.end(), place) == other.places.end())
            out.push_back(place);
    return out.empty() ? fold.places : out;
}

std::string quoted(const std::vector<std::string>& places) {
    std::vector<std::string> parts;
    for (const auto& place : places) parts.push_back("`" + place + "`");
    return parts.empty() ? "no Python frame" : fmt::format("{}", fmt::join(parts, " and "));
}

std::string why_not(const RankDump& dump) {
    if (!dump.result.transport_error.empty()) return "unreachable: " + dump.result.transport_error;
    if (dump.result.timed_out) return "py-spy did not answer in time";
    auto text = util::trim(dump.result.err.empty() ? dump.result.out : dump.result.err);
    if (text.empty()) text = "no output";
    return fmt::format("exit {}: {}", dump.result.exit_code, text);
}

// What to do about a failed dump, from py-spy's words.
std::string hint_for(const RankDump& dump) {
    const auto& err = dump.result.err;
    if (err.find("Permission Denied") != std::string::npos ||
        err.find("Operation not permitted") != std::string::npos)
        return "py-spy may not ptrace the rank: add `--cap-add SYS_PTRACE` to the role's container.options "
               "(sglang #33549), or run it as root on the host";
    if (dump.result.exit_code == 127 || err.find("not installed") != std::string::npos)
        return "install py-spy in the image or on the node (`pip install py-spy`), or set the role's "
               "`py_spy:`";
    return "";
}

std::vector<std::vector<const RankDump*>> by_stage(const std::vector<RankDump>& dumps) {
    std::vector<std::vector<const RankDump*>> stages;
    std::map<std::string, std::size_t> index;
    for (const auto& dump : dumps) {
        auto [it, added] = index.emplace(dump.stage, stages.size());
        if (added) stages.emplace_back();
        stages[it->second].push_back(&dump);
    }
    return stages;
}

}  // namespace

std::vector<StackFold> fold_stacks(const std::vector<const RankDump*>& dumps) {
    std::vector<StackFold> folds;
    for (const auto* dump : dumps) {
        if (!dump->ok()) continue;
        const auto places = runtime::top_places(runtime::parse_py_spy_dump(dump->result.out));
        auto fold =
            std::find_if(folds.begin(), folds.end(), [&](const StackFold& f) { return f.places == places; });
        if (fold == folds.end())
            folds.push_back({places, {dump}});
        else
            fold->ranks.push_back(dump);
    }
    std::stable_sort(folds.begin(), folds.end(),
                     [](const StackFold& a, const StackFold& b) { return a.ranks.size() > b.ranks.size(); });
    return folds;
}

std::vector<std::string> odd_ones_out(const std::vector<StackFold>& folds) {
    std::vector<std::string> lines;
    if (folds.size() < 2 || folds[0].ranks.size() < 2 || folds[0].ranks.size() == folds[1].ranks.size())
        return lines;
    const auto& most = folds[0];
    for (std::size_t i = 1; i < folds.size(); ++i) {
        const auto& odd = folds[i];
        const std::string who = odd.ranks.size() == 1
                                    ? fmt::format("rank {} on {} is", odd.ranks[0]->rank, odd.ranks[0]->node)
                                    : fmt::format("{} on {} are", ranks_of(odd.ranks), nodes_of(odd.ranks));
        lines.push_back(fmt::format("{} in {} while {} are in {}", who, quoted(distinct(odd, most)),
                                    ranks_of(most.ranks), quoted(distinct(most, odd))));
    }
    return lines;
}

std::string render_stack_text(const std::vector<RankDump>& dumps) {
    std::string out;
    for (const auto& stage : by_stage(dumps)) {
        const auto folds = fold_stacks(stage);
        std::size_t dumped = 0;
        for (const auto& fold : folds) dumped += fold.ranks.size();
        out += fmt::format("{}: {} of {} ranks dumped", stage.front()->stage, dumped, stage.size());
        if (folds.size() == 1 && dumped == stage.size() && dumped > 1)
            out += fmt::format(", all in {}", quoted(folds[0].places));
        out += "\n";
        for (const auto& line : odd_ones_out(folds)) out += "  " + line + "\n";
        for (const auto* dump : stage) {
            if (dump->ok()) continue;
            out += fmt::format("  rank {} on {}: no stack: {}\n", dump->rank, dump->node, why_not(*dump));
            if (const auto hint = hint_for(*dump); !hint.empty()) out += "    hint: " + hint + "\n";
        }
        for (const auto& fold : folds) {
            out += fmt::format("── {} ({}) ──\n", ranks_of(fold.ranks), nodes_of(fold.ranks));
            out += fold.ranks.front()->result.out;
            if (!out.ends_with('\n')) out += '\n';
        }
    }
    return out;
}

json stack_to_json(const std::vector<RankDump>& dumps) {
    json stages = json::array();
    for (const auto& stage : by_stage(dumps)) {
        const auto folds = fold_stacks(stage);
        json ranks = json::array();
        for (const auto* dump : stage) {
            json rank = {{"rank", dump->rank}, {"node", dump->node}, {"ok", dump->ok()}};
            if (dump->ok()) {
                const auto processes = runtime::parse_py_spy_dump(dump->result.out);
                rank["places"] = runtime::top_places(processes);
                json threads = json::array();
                for (const auto& process : processes)
                    for (const auto& thread : process.threads)
                        threads.push_back({{"process", process.header},
                                           {"thread", thread.name},
                                           {"frames", thread.frames}});
                rank["threads"] = threads;
            } else {
                rank["error"] = why_not(*dump);
                if (const auto hint = hint_for(*dump); !hint.empty()) rank["hint"] = hint;
            }
            ranks.push_back(rank);
        }
        json groups = json::array();
        for (const auto& fold : folds) {
            json members = json::array();
            for (const auto* dump : fold.ranks) members.push_back(dump->rank);
            groups.push_back({{"places", fold.places}, {"ranks", members}});
        }
        stages.push_back({{"stage", stage.front()->stage},
                          {"ranks", ranks},
                          {"groups", groups},
                          {"odd_ones_out", odd_ones_out(folds)}});
    }
    return json{{"stages", stages}};
}

}  // namespace pdctl::report

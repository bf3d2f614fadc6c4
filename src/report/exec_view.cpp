#include "pdctl/report/exec_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pdctl/util/name_ranges.hpp"

namespace pdctl::report {
namespace {

std::string printed(const exec::CommandResult& result) {
    auto text = result.out + result.err;
    if (!text.empty() && text.back() != '\n') text += '\n';
    return text;
}

// "exit 0", "exit 1", "timed out", "killed by SIGKILL", "unreachable (...)".
std::string outcome(const exec::CommandResult& result) {
    if (!result.transport_error.empty()) return "unreachable (" + result.transport_error + ")";
    if (result.timed_out) return "timed out";
    if (!result.signal.empty()) return "killed by " + result.signal;
    return fmt::format("exit {}", result.exit_code);
}

}  // namespace

std::vector<OutputGroup> group_outputs(const std::vector<ExecAnswer>& answers) {
    std::vector<OutputGroup> groups;
    for (const auto& answer : answers) {
        if (!answer.result.transport_error.empty()) continue;
        const auto text = printed(answer.result);
        auto found =
            std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.text == text; });
        if (found == groups.end()) {
            groups.push_back({{answer.label}, text});
        } else {
            found->labels.push_back(answer.label);
        }
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& a, const auto& b) { return a.labels.size() > b.labels.size(); });
    return groups;
}

std::string render_exec_text(const std::vector<ExecAnswer>& answers) {
    std::string text;
    for (const auto& group : group_outputs(answers)) {
        text += fmt::format("── {} ({}) ──\n", util::name_ranges(group.labels), group.labels.size());
        text += group.text.empty() ? "(no output)\n" : group.text;
    }
    return text + render_exec_outcomes(answers);
}

std::string render_exec_outcomes(const std::vector<ExecAnswer>& answers) {
    // Outcomes in first-appearance order, each with its nodes.
    std::vector<std::pair<std::string, std::vector<std::string>>> outcomes;
    for (const auto& answer : answers) {
        const auto what = outcome(answer.result);
        auto found =
            std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.first == what; });
        if (found == outcomes.end()) {
            outcomes.push_back({what, {answer.label}});
        } else {
            found->second.push_back(answer.label);
        }
    }
    std::string summary;
    for (const auto& [what, labels] : outcomes)
        summary += fmt::format("{}{}: {}", summary.empty() ? "" : " · ", what, util::name_ranges(labels));
    return summary + "\n";
}

nlohmann::json exec_to_json(const std::vector<ExecAnswer>& answers) {
    auto nodes = nlohmann::json::array();
    for (const auto& answer : answers) {
        const auto& r = answer.result;
        nodes.push_back(
            {{"node", answer.node},
             {"unit", answer.unit.empty() ? nlohmann::json(nullptr) : nlohmann::json(answer.unit)},
             {"exit_code", r.transport_error.empty() && !r.timed_out ? nlohmann::json(r.exit_code)
                                                                     : nlohmann::json(nullptr)},
             {"timed_out", r.timed_out},
             {"signal", r.signal.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.signal)},
             {"unreachable",
              r.transport_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.transport_error)},
             {"stdout", r.out},
             {"stderr", r.err}});
    }
    return {{"ok", exec_exit_code(answers) == ExitCode::kOk}, {"nodes", nodes}};
}

ExitCode exec_exit_code(const std::vector<ExecAnswer>& answers) {
    bool failed = false;
    for (const auto& answer : answers) {
        if (!answer.result.transport_error.empty()) return ExitCode::kUnreachable;
        failed = failed || !answer.result.ok();
    }
    return failed ? ExitCode::kCommandFailed : ExitCode::kOk;
}

}  // namespace pdctl::report

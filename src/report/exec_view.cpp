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
    return {{"ok", ops::exec_exit_code(answers) == ExitCode::kOk}, {"nodes", nodes}};
}

void ExecLinePrinter::begin(const std::vector<std::string>& labels) {
    pending_.clear();
    for (const auto& label : labels) pending_.push_back({label, {}, {}});
}

void ExecLinePrinter::output(std::size_t target, bool error_stream, std::string_view chunk) {
    // Each target's output comes from its own thread: its buffers are its own.
    auto& target_pending = pending_[target];
    auto& pending = error_stream ? target_pending.err : target_pending.out;
    pending.append(chunk);
    std::size_t newline = 0;
    while ((newline = pending.find('\n')) != std::string::npos) {
        print(target_pending.label, error_stream, pending.substr(0, newline));
        pending.erase(0, newline + 1);
    }
}

void ExecLinePrinter::ended(std::size_t target) {
    auto& pending = pending_[target];
    if (!pending.out.empty()) print(pending.label, false, pending.out);
    if (!pending.err.empty()) print(pending.label, true, pending.err);
    pending.out.clear();
    pending.err.clear();
}

void ExecLinePrinter::print(const std::string& label, bool error_stream, const std::string& line) {
    std::lock_guard lock(mutex_);
    fmt::print(error_stream ? stderr : stdout, "{}: {}\n", label, redactor_.redact(line));
    std::fflush(error_stream ? stderr : stdout);
}

}  // namespace pdctl::report

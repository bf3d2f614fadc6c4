#include "pdctl/report/history_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {
using engine::Duration;

using util::format_elapsed;

namespace {

using util::pad;

using state::journal::RunRecord;

std::string where_it_failed(const RunRecord& run) {
    if (run.exit_code == 0) return "";
    std::string where = run.failed_role;
    if (!run.failed_node.empty()) where += " " + run.failed_node;
    if (run.failed_rank >= 0 && !run.failed_node.empty()) where += fmt::format(" rank{}", run.failed_rank);
    std::string why = !run.failed_reason.empty() ? run.failed_reason : run.message;
    if (where.empty()) return why;
    return why.empty() ? where : where + ": " + why;
}

std::string outcome(const RunRecord& run) {
    if (!run.complete) return "? " + run.result;
    return (run.exit_code == 0 ? "✓ " : "✗ ") + run.result;
}

// "2026-11-29T08:12:03Z" -> "2026-11-29 08:12:03"
std::string readable_time(std::string ts) {
    if (ts.size() >= 19 && ts[10] == 'T') ts[10] = ' ';
    if (!ts.empty() && ts.back() == 'Z') ts.pop_back();
    return ts;
}

}  // namespace

std::string render_history_text(const std::vector<RunRecord>& runs, const std::string& source) {
    if (runs.empty()) return fmt::format("no runs recorded yet in {}\n", source);
    // RUN is what `timeline`, `config show` and `rollback` take; CONFIG the kept config's first digits.
    const std::vector<std::string> header = {
        "TIME (UTC)", "RUN", "VERB", "WHO", "RESULT", "EXIT", "DURATION", "CONFIG", "WHERE IT FAILED"};
    std::vector<std::vector<std::string>> rows;
    for (const auto& run : runs) {
        rows.push_back({readable_time(run.started), run.run, run.verb, run.who, outcome(run),
                        run.exit_code >= 0 ? std::to_string(run.exit_code) : "-",
                        format_elapsed(Duration(run.duration_ms)),
                        run.config_id.empty() ? "-" : run.config_id.substr(0, 12), where_it_failed(run)});
    }
    std::vector<std::size_t> widths(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
        widths[c] = util::display_width(header[c]);
        for (const auto& row : rows) widths[c] = std::max(widths[c], util::display_width(row[c]));
    }
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t c = 0; c < cells.size(); ++c)
            text += c + 1 == cells.size() ? cells[c] : pad(cells[c], widths[c] + 2);
        while (!text.empty() && text.back() == ' ') text.pop_back();
        return text + "\n";
    };
    std::string text = line(header);
    for (const auto& row : rows) text += line(row);
    return text;
}

nlohmann::json history_to_json(const std::vector<RunRecord>& runs, const std::string& cluster,
                               const std::string& source) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& run : runs) {
        nlohmann::json item = {
            {"run", run.run},
            {"started", run.started},
            {"verb", run.verb},
            {"who", run.who},
            {"config", run.config},
            {"version", run.version},
            {"config_id", run.config_id.empty() ? nlohmann::json() : nlohmann::json(run.config_id)},
            {"result", run.result},
            {"exit_code", run.exit_code},
            {"duration_ms", run.duration_ms},
            {"message", run.message},
            {"complete", run.complete},
            {"failed", nullptr}};
        if (run.exit_code != 0 && !run.failed_role.empty())
            item["failed"] = {{"role", run.failed_role},
                              {"node", run.failed_node},
                              {"rank", run.failed_rank},
                              {"reason", run.failed_reason}};
        list.push_back(std::move(item));
    }
    return {{"cluster", cluster}, {"journal", source}, {"runs", list}};
}

}  // namespace pdctl::report

#include "pdctl/report/sweep_view.hpp"

#include <fmt/format.h>

#include "pdctl/ops/bench_record.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {
namespace {

using json = nlohmann::json;

std::string objectives_text(const ops::SweepObjectives& objectives) {
    std::vector<std::string> parts;
    if (objectives.ttft_p90_s) parts.push_back(fmt::format("p90 TTFT ≤ {:g} s", *objectives.ttft_p90_s));
    if (objectives.itl_p90_s) parts.push_back(fmt::format("p90 ITL ≤ {:g} ms", *objectives.itl_p90_s * 1e3));
    return parts.empty() ? "no failed request" : "no failed request, " + util::join(parts, ", ");
}

const ops::SweepEntry* entry_of(const std::vector<ops::SweepEntry>& entries, const std::string& config) {
    for (const auto& entry : entries)
        if (entry.config == config) return &entry;
    return nullptr;
}

std::string run_of(const ops::SweepEntry* entry) {
    return entry && entry->bench ? entry->bench->run_id : "";
}

json point_json(const ops::SweepPoint& point) {
    return {{"row", point.row},
            {"level", point.level},
            {"output_throughput_per_gpu", point.per_gpu},
            {"ttft_p90_s", point.ttft_p90_s},
            {"itl_p90_s", point.itl_p90_s},
            {"e2e_p50_s", point.e2e_p50_s},
            {"ok", point.ok},
            {"failed", point.failed},
            {"meets_objectives", point.meets_objectives},
            {"pareto", point.pareto}};
}

json standing_json(const ops::SweepStanding& standing, int rank) {
    json points = json::array();
    for (const auto& point : standing.points) points.push_back(point_json(point));
    return {{"rank", rank},
            {"config", standing.config},
            {"pd", standing.pd},
            {"gpus", standing.gpus},
            {"score", standing.score},
            {"no_score", standing.no_score.empty() ? json() : json(standing.no_score)},
            {"points", points}};
}

}  // namespace

std::string render_sweep(const std::vector<ops::SweepEntry>& entries,
                         const std::vector<ops::SweepStanding>& standings,
                         const ops::SweepObjectives& objectives) {
    std::string out = fmt::format(
        "sweep of {} configs, ranked by output tok/s per GPU (the geometric mean over rows of each row's "
        "best level with {})\n",
        standings.size(), objectives_text(objectives));
    out += fmt::format("{:<4} {:<24} {:<6} {:>5} {:>8}  {:<10} {:<7} {:>9} {:>10} {:>9} {:>9} {:>8}\n",
                       "RANK", "CONFIG", "P:D", "GPUS", "SCORE", "ROW", "LEVEL", "TOK/S/GPU", "TTFT p90",
                       "ITL p90", "E2E p50", "OK/FAIL");
    int rank = 0;
    for (const auto& standing : standings) {
        ++rank;
        const std::string head =
            fmt::format("{:<4} {:<24} {:<6} {:>5} {:>8}", rank, standing.config, standing.pd, standing.gpus,
                        standing.no_score.empty() ? fmt::format("{:.2f}", standing.score) : "-");
        if (standing.points.empty()) {
            out += fmt::format("{}  {}\n", head, standing.no_score);
            continue;
        }
        bool first = true;
        for (const auto& point : standing.points) {
            out += fmt::format("{}  {:<10} {:<7} {:>7.2f} {} {:>8.0f}ms {:>7.1f}ms {:>8.2f}s {:>8}\n",
                               first ? head : std::string(4 + 1 + 24 + 1 + 6 + 1 + 5 + 1 + 8, ' '), point.row,
                               point.level, point.per_gpu, point.pareto ? "◆" : " ", point.ttft_p90_s * 1e3,
                               point.itl_p90_s * 1e3, point.e2e_p50_s,
                               fmt::format("{}/{}", point.ok, point.failed));
            first = false;
        }
        if (!standing.no_score.empty()) out += fmt::format("     no score: {}\n", standing.no_score);
    }
    out +=
        "  ◆ on its row's Pareto front: no other config's level has more tok/s per GPU at a lower p90 TTFT "
        "and p90 ITL\n";
    for (const auto& standing : standings)
        if (const auto run = run_of(entry_of(entries, standing.config)); !run.empty())
            out += fmt::format("  {}: journaled as bench run {}\n", standing.config, run);
    if (!standings.empty() && standings.front().no_score.empty()) {
        const auto& best = standings.front();
        out += fmt::format("best: {} ({}) at {:.2f} output tok/s per GPU", best.config, best.pd, best.score);
        if (standings.size() > 1 && standings[1].score > 0)
            out += fmt::format(", {:.2f}× {} ({})", best.score / standings[1].score, standings[1].config,
                               standings[1].pd);
        out += "\n";
    } else {
        out += "no config served every row without failures within the objectives\n";
    }
    if (!entries.empty())
        out += fmt::format(
            "the cluster now runs {}, the sweep's last config (`pdctl -c CONFIG start` moves it)\n",
            entries.back().config);
    return out;
}

json sweep_to_json(const std::vector<ops::SweepEntry>& entries,
                   const std::vector<ops::SweepStanding>& standings, const ops::SweepObjectives& objectives) {
    json configs = json::array();
    for (const auto& entry : entries) {
        json item = {{"config", entry.config},
                     {"pd", entry.pd},
                     {"start_exit_code", static_cast<int>(entry.start_code)},
                     {"run", nullptr},
                     {"bench_exit_code", nullptr},
                     {"record", nullptr}};
        if (entry.bench) {
            item["run"] = entry.bench->run_id;
            item["bench_exit_code"] = static_cast<int>(entry.bench->code);
            item["record"] = ops::bench_record(entry.bench->report);
        }
        configs.push_back(std::move(item));
    }
    json ranking = json::array();
    int rank = 0;
    for (const auto& standing : standings) ranking.push_back(standing_json(standing, ++rank));
    return {{"format", ops::kBenchRecordFormat},
            {"objectives",
             {{"ttft_p90_s", objectives.ttft_p90_s ? json(*objectives.ttft_p90_s) : json()},
              {"itl_p90_s", objectives.itl_p90_s ? json(*objectives.itl_p90_s) : json()}}},
            {"configs", configs},
            {"ranking", ranking}};
}

}  // namespace pdctl::report

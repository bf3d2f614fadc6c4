#include "pdctl/ops/sweep_ranking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "pdctl/load/level_label.hpp"

namespace pdctl::ops {
namespace {

std::string level_name(const nlohmann::json& level) {
    const auto rate = level.value("rate", nlohmann::json());
    return load::level_label(level.value("concurrency", 0),
                             rate.is_number() ? std::optional(rate.get<double>()) : std::nullopt);
}

double number(const nlohmann::json& level, const char* metric, const char* statistic) {
    const auto found = level.find(metric);
    if (found == level.end() || !found->is_object()) return 0;
    const auto value = found->find(statistic);
    return value != found->end() && value->is_number() ? value->get<double>() : 0;
}

SweepPoint point_of(const std::string& row, const nlohmann::json& level, const SweepObjectives& objectives) {
    SweepPoint point;
    point.row = row;
    point.level = level_name(level);
    point.per_gpu = level.value("output_throughput_per_gpu", 0.0);
    point.ttft_p90_s = number(level, "ttft_s", "p90");
    point.itl_p90_s = number(level, "itl_s", "p90");
    point.e2e_p50_s = number(level, "e2e_s", "p50");
    point.ok = level.value("ok", 0);
    point.failed = level.value("failed", 0);
    point.meets_objectives = point.failed == 0 && point.ok > 0 &&
                             (!objectives.ttft_p90_s || point.ttft_p90_s <= *objectives.ttft_p90_s) &&
                             (!objectives.itl_p90_s || point.itl_p90_s <= *objectives.itl_p90_s);
    return point;
}

// a at least as good as b everywhere, and better somewhere.
bool dominates(const SweepPoint& a, const SweepPoint& b) {
    const bool no_worse =
        a.per_gpu >= b.per_gpu && a.ttft_p90_s <= b.ttft_p90_s && a.itl_p90_s <= b.itl_p90_s;
    const bool better = a.per_gpu > b.per_gpu || a.ttft_p90_s < b.ttft_p90_s || a.itl_p90_s < b.itl_p90_s;
    return no_worse && better;
}

// Only points with an answer take part: a level where every request failed has no latency to compare.
void mark_pareto(std::vector<SweepStanding>& standings) {
    std::map<std::string, std::vector<SweepPoint*>> rows;
    for (auto& standing : standings)
        for (auto& point : standing.points)
            if (point.ok > 0) rows[point.row].push_back(&point);
    for (auto& [row, points] : rows)
        for (auto* candidate : points)
            candidate->pareto = std::none_of(points.begin(), points.end(), [&](const SweepPoint* other) {
                return other != candidate && dominates(*other, *candidate);
            });
}

void score(SweepStanding& standing) {
    std::vector<std::string> rows;
    for (const auto& point : standing.points)
        if (std::find(rows.begin(), rows.end(), point.row) == rows.end()) rows.push_back(point.row);
    double log_sum = 0;
    for (const auto& row : rows) {
        double best = 0;
        for (const auto& point : standing.points)
            if (point.row == row && point.meets_objectives) best = std::max(best, point.per_gpu);
        if (best <= 0) {
            standing.no_score =
                fmt::format("no level of row {} without failures and within the objectives", row);
            return;
        }
        log_sum += std::log(best);
    }
    if (rows.empty()) {
        standing.no_score = "no bench rows";
        return;
    }
    standing.score = std::exp(log_sum / static_cast<double>(rows.size()));
}

}  // namespace

std::vector<SweepStanding> rank_sweep(const std::vector<SweepCandidate>& candidates,
                                      const SweepObjectives& objectives) {
    std::vector<SweepStanding> standings;
    for (const auto& candidate : candidates) {
        SweepStanding standing;
        standing.config = candidate.config;
        standing.pd = candidate.pd;
        if (candidate.record.is_object()) {
            standing.pd = candidate.record.value("pd", candidate.pd);
            const auto& gpus = candidate.record.value("gpus", nlohmann::json::object());
            standing.gpus = gpus.value("prefill", 0) + gpus.value("decode", 0);
            for (const auto& row : candidate.record.value("rows", nlohmann::json::array()))
                for (const auto& level : row.value("levels", nlohmann::json::array()))
                    standing.points.push_back(point_of(row.value("name", ""), level, objectives));
        }
        standings.push_back(std::move(standing));
    }
    mark_pareto(standings);
    for (std::size_t i = 0; i < standings.size(); ++i) {
        if (!candidates[i].failure.empty())
            standings[i].no_score = candidates[i].failure;
        else
            score(standings[i]);
    }
    std::stable_sort(standings.begin(), standings.end(),
                     [](const SweepStanding& a, const SweepStanding& b) { return a.score > b.score; });
    return standings;
}

}  // namespace pdctl::ops

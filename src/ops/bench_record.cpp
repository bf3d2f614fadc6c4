#include "pdctl/ops/bench_record.hpp"

#include <fmt/format.h>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {
namespace {

using json = nlohmann::json;

json percentiles_json(const load::Percentiles& p) {
    return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
}

const char* workload_name(BenchWorkload workload) {
    switch (workload) {
        case BenchWorkload::kSharedPrefix:
            return "shared-prefix";
        case BenchWorkload::kMultiTurn:
            return "multi-turn";
        case BenchWorkload::kDataset:
            return "dataset";
        case BenchWorkload::kUnique:
            break;
    }
    return "unique";
}

json tags_json(const BenchLevel& level) {
    json tags = json::array();
    for (const auto& [tag, stats] : level.by_tag)
        tags.push_back({{"tag", tag},
                        {"ok", stats.ok},
                        {"failed", stats.failed},
                        {"ttft_s", percentiles_json(stats.ttft)},
                        {"cached_share", stats.cached_share()},
                        {"cached_tokens", stats.cached_tokens},
                        {"prompt_tokens", stats.counted_prompt_tokens}});
    return tags;
}

json level_json(const BenchLevel& level) {
    const auto& s = level.stats;
    json errors = json::array();
    for (const auto& group : s.errors) errors.push_back({{"error", group.error}, {"count", group.count}});
    return {{"concurrency", level.concurrency},
            {"rate", level.rate ? json(*level.rate) : json(nullptr)},
            {"ok", s.ok},
            {"failed", s.failed},
            {"errors", errors},
            {"duration_s", s.duration_s},
            {"e2e_s", percentiles_json(s.e2e)},
            {"ttft_s", percentiles_json(s.ttft)},
            {"itl_s", percentiles_json(s.itl)},
            {"tpot_s", percentiles_json(s.tpot)},
            {"input_tok_s_per_request", percentiles_json(s.input_tok_s)},
            {"output_tok_s_per_request", percentiles_json(s.output_tok_s)},
            {"request_throughput", s.request_throughput},
            {"input_throughput", s.input_throughput},
            {"output_throughput", s.output_throughput},
            {"output_throughput_per_gpu", s.output_throughput_per_gpu},
            {"input_tokens", s.input_tokens},
            {"output_tokens", s.output_tokens},
            {"cancelled", level.cancelled},
            {"runs", level.runs.size()},
            {"cached",
             {{"tokens", s.cached_tokens},
              {"prompt_tokens", s.counted_prompt_tokens},
              {"requests_reported", s.cache_reported},
              {"share", s.cached_share()},
              {"flagged", level.cache_flagged}}},
            {"predicted_cache_share",
             level.predicted_cache_share ? json(*level.predicted_cache_share) : json(nullptr)},
            {"by_tag", tags_json(level)},
            {"goodput", level.goodput ? json{{"met", level.goodput->met},
                                             {"requests", level.goodput->requests},
                                             {"attainment", level.goodput->attainment},
                                             {"requests_per_s", level.goodput->requests_per_s},
                                             {"holds", level.goodput->holds()}}
                                      : json(nullptr)}};
}

json slo_json(const BenchSpec& spec) {
    if (!spec.slo) return nullptr;
    json slo = json::object();
    if (spec.slo->ttft_s) slo["ttft_s"] = *spec.slo->ttft_s;
    if (spec.slo->itl_s) slo["itl_p99_s"] = *spec.slo->itl_s;
    if (spec.slo->tpot_s) slo["tpot_s"] = *spec.slo->tpot_s;
    if (spec.slo->e2e_s) slo["e2e_s"] = *spec.slo->e2e_s;
    return slo;
}

json kv_json(const KvCounters& group) {
    json entry = {{"role", group.role}, {"node", group.node}, {"url", group.url}};
    if (!group.unavailable.empty()) {
        entry["unavailable"] = group.unavailable;
        return entry;
    }
    entry["transfer_failed"] = {{"before", group.transfer_failed_before},
                                {"after", group.transfer_failed_after}};
    entry["bootstrap_failed"] = {{"before", group.bootstrap_failed_before},
                                 {"after", group.bootstrap_failed_after}};
    entry["transfer_speed_gb_s"] =
        group.transfer_speed_gb_s ? json(*group.transfer_speed_gb_s) : json(nullptr);
    entry["transfer_latency_ms"] =
        group.transfer_latency_ms ? json(*group.transfer_latency_ms) : json(nullptr);
    entry["transfer_failed"]["rise"] = group.transfer_failed_rise;
    entry["bootstrap_failed"]["rise"] = group.bootstrap_failed_rise;
    entry["resets"] = group.resets;
    return entry;
}

}  // namespace

std::string level_key(const std::string& row, int concurrency, std::optional<double> rate) {
    return rate ? fmt::format("{} {:g}/s", row, *rate) : fmt::format("{} c={}", row, concurrency);
}

json bench_record(const BenchReport& report) {
    json groups = json::array();
    int prefill_groups = 0;
    int decode_groups = 0;
    for (const auto& group : report.groups) {
        groups.push_back({{"role", group.role},
                          {"mode", group.mode},
                          {"nodes", group.nodes},
                          {"tp", group.tp},
                          {"gpus", group.gpus},
                          {"image", group.image}});
        (group.mode == "prefill" ? prefill_groups : decode_groups) += 1;
    }
    json rows = json::array();
    for (const auto& row : report.rows) {
        json levels = json::array();
        for (const auto& level : row.levels) levels.push_back(level_json(level));
        rows.push_back({{"name", row.row.name},
                        {"workload", workload_name(row.row.workload)},
                        {"input_tokens", row.row.input_tokens},
                        {"output_tokens", row.row.output_tokens},
                        {"levels", levels}});
    }
    json kv = json::array();
    for (const auto& group : report.kv) kv.push_back(kv_json(group));
    json ramp = json::array();
    for (const auto& step : report.ramp) ramp.push_back({{"rate", step.rate}, {"held", step.held}});
    return {{"format", kBenchRecordFormat},
            {"ok", report.passed()},
            {"cluster", report.cluster},
            {"config", report.config},
            {"version", report.version},
            {"started", report.started},
            {"scenario", report.spec.scenario},
            {"soak", report.spec.soak},
            {"router", report.router_role},
            {"url", report.url},
            {"pd", fmt::format("{}P:{}D", prefill_groups, decode_groups)},
            {"groups", groups},
            {"gpus", {{"prefill", report.prefill_gpus}, {"decode", report.decode_gpus}}},
            {"seed", report.spec.seed},
            {"seed_given", report.spec.seed_given},
            {"repeat", report.spec.repeat},
            {"burstiness", report.spec.burstiness},
            {"base_url", report.spec.base_url.empty() ? json(nullptr) : json(report.spec.base_url)},
            {"slo", slo_json(report.spec)},
            {"ramp", ramp},
            {"saturation_rps", report.saturation_rps ? json(*report.saturation_rps) : json(nullptr)},
            {"notes", report.notes},
            {"rows", rows},
            {"kv", kv},
            {"problems", report.problems},
            {"cancelled", report.cancelled}};
}

std::vector<RecordedLevel> recorded_levels(const json& record, const std::string& where) {
    if (!record.is_object() || !record.contains("rows") || !record["rows"].is_array())
        throw Failure(ExitCode::kUsage, fmt::format("{}: not a bench record (no \"rows\"): write one with "
                                                    "`pdctl --json bench ... > FILE`",
                                                    where));
    std::vector<RecordedLevel> levels;
    for (const auto& row : record["rows"]) {
        if (!row.is_object() || !row.contains("levels")) continue;
        const std::string name = row.value("name", "");
        for (const auto& level : row["levels"]) {
            if (!level.is_object()) continue;
            const std::optional<double> rate = level.contains("rate") && level["rate"].is_number()
                                                   ? std::optional(level["rate"].get<double>())
                                                   : std::nullopt;
            levels.push_back({level_key(name, level.value("concurrency", 1), rate), level});
        }
    }
    return levels;
}

}  // namespace pdctl::ops

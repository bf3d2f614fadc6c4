#include "pdctl/ops/bench_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "pdctl/load/level_label.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/splitmix.hpp"

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

// Seconds to the microsecond: finer than any clock a request is timed with, and short in the journal.
double microseconds(double seconds) {
    return std::round(seconds * 1e6) / 1e6;
}

// Which of `count` requests the samples keep: every one up to the cap, else a uniform subsample of the
// cap's size (a partial Fisher-Yates shuffle), in send order.
std::vector<std::size_t> kept_requests(std::size_t count, std::uint64_t seed) {
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto cap = static_cast<std::size_t>(kBenchSamplesKept);
    if (count <= cap) return order;
    // splitmix64, not <random>: the same subsample from the same seed on every platform.
    std::uint64_t state = seed;
    for (std::size_t i = 0; i < cap; ++i)
        std::swap(order[i], order[i + util::splitmix64(state) % (count - i)]);
    order.resize(cap);
    std::sort(order.begin(), order.end());
    return order;
}

// What a later `--vs` tests: per successful request its TTFT, TPOT, mean ITL and e2e (TPOT and ITL null
// for a one-token answer), its tokens in and out, and each run's output throughput.
json samples_json(const BenchLevel& level, std::uint64_t seed) {
    std::vector<const load::RequestRecord*> ok;
    for (const auto& record : level.records)
        if (record.ok()) ok.push_back(&record);
    json ttft = json::array(), tpot = json::array(), itl = json::array(), e2e = json::array();
    json input = json::array(), output = json::array();
    for (const std::size_t index : kept_requests(ok.size(), seed)) {
        const auto& record = *ok[index];
        ttft.push_back(microseconds(record.ttft_s));
        e2e.push_back(microseconds(record.e2e_s));
        tpot.push_back(record.output_tokens > 1 ? json(microseconds(record.tpot_s())) : json(nullptr));
        itl.push_back(record.itl_s.empty()
                          ? json(nullptr)
                          : json(microseconds(std::accumulate(record.itl_s.begin(), record.itl_s.end(), 0.0) /
                                              static_cast<double>(record.itl_s.size()))));
        input.push_back(record.input_tokens);
        output.push_back(record.output_tokens);
    }
    json runs = json::array();
    for (const auto& run : level.runs) runs.push_back(run.output_throughput);
    if (level.runs.empty()) runs.push_back(level.stats.output_throughput);
    json samples = {{"requests", ok.size()},
                    {"kept", ttft.size()},
                    {"ttft_s", ttft},
                    {"tpot_s", tpot},
                    {"itl_s", itl},
                    {"e2e_s", e2e},
                    {"input_tokens", input},
                    {"output_tokens", output},
                    {"output_throughput_per_run", runs}};
    if (ok.size() > ttft.size()) samples["subsample"] = fmt::format("seeded uniform, seed {}", seed);
    return samples;
}

// numpy's mean, median, std (population) and percentiles, in milliseconds, under bench_serving's names.
void add_serving_stats(json& level, const std::string& name, std::vector<double> seconds,
                       std::initializer_list<int> percentiles) {
    double mean = 0;
    double spread = 0;
    if (!seconds.empty()) {
        mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
        for (double value : seconds) spread += (value - mean) * (value - mean);
        spread = std::sqrt(spread / static_cast<double>(seconds.size()));
    }
    level["mean_" + name + "_ms"] = mean * 1e3;
    level["median_" + name + "_ms"] = load::percentile(seconds, 50) * 1e3;
    level["std_" + name + "_ms"] = spread * 1e3;
    for (const int q : percentiles)
        level[fmt::format("p{}_{}_ms", q, name)] = load::percentile(seconds, q) * 1e3;
}

// sglang.bench_serving's result fields (python/sglang/bench_serving.py, calculate_metrics and the result
// it writes), from the same requests. request/input/output_throughput are already pdctl's own, with the
// same meaning; its "concurrency" (sum of e2e / duration) is not carried: the name is the level's here.
void add_serving_fields(json& out, const BenchLevel& level) {
    const auto& s = level.stats;
    std::vector<double> e2e, ttft, tpot, itl;
    for (const auto& record : level.records) {
        if (!record.ok()) continue;
        e2e.push_back(record.e2e_s);
        ttft.push_back(record.ttft_s);
        if (record.output_tokens > 1) tpot.push_back(record.tpot_s());
        itl.insert(itl.end(), record.itl_s.begin(), record.itl_s.end());
    }
    out["completed"] = s.ok;
    out["duration"] = s.duration_s;
    out["total_input_tokens"] = s.input_tokens;
    out["total_output_tokens"] = s.output_tokens;
    out["total_throughput"] = s.duration_s > 0 ? (s.input_tokens + s.output_tokens) / s.duration_s : 0.0;
    out["max_concurrency"] = level.concurrency > 0 ? json(level.concurrency) : json(nullptr);
    out["request_rate"] = level.rate ? json(*level.rate) : json(nullptr);  // bench_serving: inf
    add_serving_stats(out, "e2e_latency", e2e, {99});
    add_serving_stats(out, "ttft", ttft, {99});
    add_serving_stats(out, "tpot", tpot, {99});
    add_serving_stats(out, "itl", itl, {95, 99});
    out["max_itl_ms"] = itl.empty() ? 0.0 : *std::max_element(itl.begin(), itl.end()) * 1e3;
}

json level_json(const BenchLevel& level, std::uint64_t seed) {
    const auto& s = level.stats;
    json errors = json::array();
    for (const auto& group : s.errors) errors.push_back({{"error", group.error}, {"count", group.count}});
    json out = {{"concurrency", level.concurrency},
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
                {"cancelled", level.cancelled}};
    out["runs"] = level.runs.size();
    out["cached"] = {{"tokens", s.cached_tokens},
                     {"prompt_tokens", s.counted_prompt_tokens},
                     {"requests_reported", s.cache_reported},
                     {"share", s.cached_share()},
                     {"flagged", level.cache_flagged}};
    out["predicted_cache_share"] =
        level.predicted_cache_share ? json(*level.predicted_cache_share) : json(nullptr);
    out["by_tag"] = tags_json(level);
    out["goodput"] = level.goodput ? json{{"met", level.goodput->met},
                                          {"requests", level.goodput->requests},
                                          {"attainment", level.goodput->attainment},
                                          {"requests_per_s", level.goodput->requests_per_s},
                                          {"holds", level.goodput->holds()}}
                                   : json(nullptr);
    add_serving_fields(out, level);
    out["samples"] = samples_json(level, seed);
    return out;
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
    return row + " " + load::level_label(concurrency, rate);
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
    for (std::size_t r = 0; r < report.rows.size(); ++r) {
        const auto& row = report.rows[r];
        json levels = json::array();
        // Each level's subsample from its own seed: the run's, its row and its level.
        for (std::size_t l = 0; l < row.levels.size(); ++l)
            levels.push_back(level_json(row.levels[l], report.spec.seed * 1000003 + r * 1009 + l));
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
            levels.push_back({level_key(name, level.value("concurrency", 1), rate), name,
                              row.value("input_tokens", 0), row.value("output_tokens", 0), level});
        }
    }
    return levels;
}

}  // namespace pdctl::ops

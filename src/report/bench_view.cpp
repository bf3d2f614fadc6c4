#include "pdctl/report/bench_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {
namespace {

using json = nlohmann::json;

std::string level_name(const ops::BenchLevel& level) {
    if (level.rate) return fmt::format("{:g}/s", *level.rate);
    return fmt::format("c={}", level.concurrency);
}

std::string ms(double seconds) {
    return fmt::format("{:.1f}", seconds * 1e3);
}

std::string three(const load::Percentiles& p, bool in_ms) {
    if (in_ms) return fmt::format("{}/{}/{}", ms(p.p50), ms(p.p90), ms(p.p99));
    return fmt::format("{:.2f}/{:.2f}/{:.2f}", p.p50, p.p90, p.p99);
}

json percentiles_json(const load::Percentiles& p) {
    return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
}

std::string kv_line(const ops::KvCounters& group) {
    if (!group.unavailable.empty())
        return fmt::format("  {:<12} {:<4} no counters: {}", group.role, group.node, group.unavailable);
    std::string line =
        fmt::format("  {:<12} {:<4} transfer failures {:g} -> {:g}, bootstrap failures {:g} -> {:g}",
                    group.role, group.node, group.transfer_failed_before, group.transfer_failed_after,
                    group.bootstrap_failed_before, group.bootstrap_failed_after);
    if (group.transfer_failed_increase() > 0 || group.bootstrap_failed_increase() > 0) line += "  ✗";
    if (group.transfer_speed_gb_s && *group.transfer_speed_gb_s > 0)
        line += fmt::format(", last transfer {:.2f} GB/s", *group.transfer_speed_gb_s);
    if (group.transfer_latency_ms && *group.transfer_latency_ms > 0)
        line += fmt::format(" in {:.1f} ms", *group.transfer_latency_ms);
    return line;
}

}  // namespace

std::string render_bench(const ops::BenchReport& report) {
    std::string out = fmt::format("bench {} · {} · through {} {} · GPUs {} prefill + {} decode\n",
                                  report.cluster, report.spec.soak ? "soak" : report.spec.scenario,
                                  report.router_role, report.url, report.prefill_gpus, report.decode_gpus);
    out += fmt::format("{:<10} {:>6} {:>5} {:>6} {:>8}  {:<20} {:<22} {:<18} {:>8} {:>9} {:>9} {:>9} {:>8}\n",
                       "ROW", "IN", "OUT", "LOAD", "OK/FAIL", "E2E s p50/p90/p99", "TTFT ms p50/p90/p99",
                       "ITL ms p50/p90/p99", "TPOT ms", "PREFILL", "DECODE", "OUT", "OUT/GPU");
    for (const auto& row : report.rows) {
        for (const auto& level : row.levels) {
            const auto& s = level.stats;
            out += fmt::format(
                "{:<10} {:>6} {:>5} {:>6} {:>8}  {:<20} {:<22} {:<18} {:>8} {:>9.0f} {:>9.1f} {:>9.1f} "
                "{:>8.2f}\n",
                row.row.name, row.row.input_tokens, row.row.output_tokens, level_name(level),
                fmt::format("{}/{}", s.ok, s.failed), three(s.e2e, false), three(s.ttft, true),
                three(s.itl, true), ms(s.tpot.p50), s.input_tok_s.p50, s.output_tok_s.p50,
                s.output_throughput, s.output_throughput_per_gpu);
        }
    }
    out +=
        "  PREFILL: input tok/s per request (input / TTFT), DECODE: output tok/s per request (1 / TPOT), "
        "p50;\n"
        "  OUT: output tok/s of the run; OUT/GPU: that over every prefill and decode GPU (docs/bench.md)\n";
    for (const auto& row : report.rows)
        for (const auto& level : row.levels)
            for (const auto& group : level.stats.errors)
                out += fmt::format("  {} {}: {}× {}\n", row.row.name, level_name(level), group.count,
                                   group.error);
    if (!report.kv.empty()) {
        out += "KV path (rank 0 /metrics of every group, before -> after):\n";
        for (const auto& group : report.kv) out += kv_line(group) + "\n";
    }
    if (report.passed()) {
        int requests = 0;
        for (const auto& row : report.rows)
            for (const auto& level : row.levels) requests += level.stats.ok;
        out += fmt::format("✓ {} passed: {} requests, none failed{}\n", report.spec.soak ? "soak" : "bench",
                           requests, report.spec.soak ? ", no KV failure counter rose" : "");
    } else {
        out += fmt::format("✗ {} failed:\n", report.spec.soak ? "soak" : "bench");
        for (const auto& problem : report.problems) out += "  " + problem + "\n";
    }
    return out;
}

json bench_to_json(const ops::BenchReport& report) {
    json rows = json::array();
    for (const auto& row : report.rows) {
        json levels = json::array();
        for (const auto& level : row.levels) {
            const auto& s = level.stats;
            json errors = json::array();
            for (const auto& group : s.errors)
                errors.push_back({{"error", group.error}, {"count", group.count}});
            levels.push_back({{"concurrency", level.concurrency},
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
                              {"cancelled", level.cancelled}});
        }
        rows.push_back({{"name", row.row.name},
                        {"input_tokens", row.row.input_tokens},
                        {"output_tokens", row.row.output_tokens},
                        {"levels", levels}});
    }
    json kv = json::array();
    for (const auto& group : report.kv) {
        json entry = {{"role", group.role}, {"node", group.node}, {"url", group.url}};
        if (!group.unavailable.empty()) {
            entry["unavailable"] = group.unavailable;
        } else {
            entry["transfer_failed"] = {{"before", group.transfer_failed_before},
                                        {"after", group.transfer_failed_after}};
            entry["bootstrap_failed"] = {{"before", group.bootstrap_failed_before},
                                         {"after", group.bootstrap_failed_after}};
            entry["transfer_speed_gb_s"] =
                group.transfer_speed_gb_s ? json(*group.transfer_speed_gb_s) : json(nullptr);
            entry["transfer_latency_ms"] =
                group.transfer_latency_ms ? json(*group.transfer_latency_ms) : json(nullptr);
        }
        kv.push_back(entry);
    }
    return {{"ok", report.passed()},
            {"cluster", report.cluster},
            {"scenario", report.spec.scenario},
            {"soak", report.spec.soak},
            {"router", report.router_role},
            {"url", report.url},
            {"gpus", {{"prefill", report.prefill_gpus}, {"decode", report.decode_gpus}}},
            {"seed", report.spec.seed},
            {"rows", rows},
            {"kv", kv},
            {"problems", report.problems},
            {"cancelled", report.cancelled}};
}

std::string render_bench_progress(const ops::BenchProgress& progress) {
    const std::string level =
        progress.rate ? fmt::format("{:g}/s", *progress.rate) : fmt::format("c={}", progress.concurrency);
    return fmt::format("{} {} · {} done, {} failed, {} in flight · p50 e2e {:.2f} s · {:.0f} s",
                       progress.row ? progress.row->name : "", level, progress.load.done,
                       progress.load.failed, progress.load.in_flight, progress.load.p50_e2e_s,
                       progress.load.elapsed_s);
}

}  // namespace pdctl::report

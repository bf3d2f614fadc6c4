#include "pdctl/report/bench_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pdctl/load/level_label.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/bench_slo.hpp"

namespace pdctl::report {
namespace {

using json = nlohmann::json;

std::string level_name(const ops::BenchLevel& level) {
    return load::level_label(level.concurrency, level.rate);
}

std::string ms(double seconds) {
    return fmt::format("{:.1f}", seconds * 1e3);
}

std::string three(const load::Percentiles& p, bool in_ms) {
    if (in_ms) return fmt::format("{}/{}/{}", ms(p.p50), ms(p.p90), ms(p.p99));
    return fmt::format("{:.2f}/{:.2f}/{:.2f}", p.p50, p.p90, p.p99);
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

std::string cached(const ops::BenchLevel& level) {
    if (level.stats.cache_reported == 0) return "-";
    return fmt::format("{:.0f}%{}", level.stats.cached_share() * 100, level.cache_flagged ? "!" : "");
}

// With --slo: each level's share of requests that met every objective and its goodput; with
// --rate ramp, the saturation point.
std::string goodput_lines(const ops::BenchReport& report) {
    if (!report.spec.slo) return "";
    std::string out = fmt::format("SLO {} (goodput: requests/s that met it; holds at ≥ {:.0f}% met):\n",
                                  ops::describe_slo(*report.spec.slo), load::kSloAttainmentHolds * 100);
    for (const auto& row : report.rows)
        for (const auto& level : row.levels)
            if (level.goodput)
                out += fmt::format("  {:<10} {:>6}  {:>5.1f}% met  goodput {:.2f} req/s  {}\n", row.row.name,
                                   level_name(level), level.goodput->attainment * 100,
                                   level.goodput->requests_per_s, level.goodput->holds() ? "✓" : "✗");
    if (report.spec.ramp) {
        if (report.saturation_rps) {
            out += fmt::format(
                "saturation: {:.3g} req/s, the highest rate whose goodput held{}\n", *report.saturation_rps,
                report.first_failing_rps ? fmt::format(" ({:.3g} req/s did not)", *report.first_failing_rps)
                                         : std::string(" (every rate tried held)"));
        } else {
            out += "saturation: none found, not even the lowest rate tried held the SLO\n";
        }
    }
    return out;
}

// Workloads that mean to hit the cache (shared prefixes, conversations): what it served against what
// the workload predicts, and each turn's own TTFT.
std::string workload_lines(const ops::BenchReport& report) {
    std::string out;
    for (const auto& row : report.rows) {
        if (row.row.workload == ops::BenchWorkload::kUnique) continue;
        for (const auto& level : row.levels) {
            const auto& s = level.stats;
            out += fmt::format(
                "{} {}: prefix cache served {} of the prompt tokens{}\n", row.row.name, level_name(level),
                s.cache_reported > 0 ? fmt::format("{:.1f}%", s.cached_share() * 100)
                                     : std::string("(not said by the server)"),
                level.predicted_cache_share
                    ? fmt::format(" (the workload predicts {:.1f}%)", *level.predicted_cache_share * 100)
                    : "");
            for (const auto& [tag, stats] : level.by_tag)
                out +=
                    fmt::format("  {:<8} {:>4} requests  TTFT p50 {} ms  cached {}\n", tag,
                                stats.ok + stats.failed, ms(stats.ttft.p50),
                                stats.cache_reported > 0 ? fmt::format("{:.1f}%", stats.cached_share() * 100)
                                                         : std::string("-"));
        }
    }
    return out;
}

}  // namespace

std::string render_bench(const ops::BenchReport& report) {
    const std::string through =
        report.spec.base_url.empty()
            ? fmt::format("through {} {} · GPUs {} prefill + {} decode", report.router_role, report.url,
                          report.prefill_gpus, report.decode_gpus)
            : fmt::format("through {} (--base-url: an endpoint pdctl did not start)", report.url);
    std::string out = fmt::format("bench {} · {} · {} · seed {}{}\n", report.cluster,
                                  report.spec.soak ? "soak" : report.spec.scenario, through, report.spec.seed,
                                  report.spec.seed_given ? " (given)" : "");
    out += fmt::format(
        "{:<10} {:>6} {:>5} {:>6} {:>8}  {:<20} {:<22} {:<18} {:>8} {:>9} {:>9} {:>9} {:>8} {:>7}\n", "ROW",
        "IN", "OUT", "LOAD", "OK/FAIL", "E2E s p50/p90/p99", "TTFT ms p50/p90/p99", "ITL ms p50/p90/p99",
        "TPOT ms", "PREFILL", "DECODE", "OUT", "OUT/GPU", "CACHED");
    for (const auto& row : report.rows) {
        for (const auto& level : row.levels) {
            const auto& s = level.stats;
            out += fmt::format(
                "{:<10} {:>6} {:>5} {:>6} {:>8}  {:<20} {:<22} {:<18} {:>8} {:>9.0f} {:>9.1f} {:>9.1f} "
                "{:>8.2f} {:>7}\n",
                row.row.name, row.row.input_tokens, row.row.output_tokens, level_name(level),
                fmt::format("{}/{}", s.ok, s.failed), three(s.e2e, false), three(s.ttft, true),
                three(s.itl, true), ms(s.tpot.p50), s.input_tok_s.p50, s.output_tok_s.p50,
                s.output_throughput, s.output_throughput_per_gpu, cached(level));
        }
    }
    out +=
        "  PREFILL: input tok/s per request (input / TTFT), DECODE: output tok/s per request (1 / TPOT), "
        "p50;\n"
        "  OUT: output tok/s of the run; OUT/GPU: that over every prefill and decode GPU; CACHED: the share\n"
        "  of prompt tokens the servers' prefix cache served, as their answers said (docs/bench.md)\n";
    out += goodput_lines(report);
    out += workload_lines(report);
    for (const auto& row : report.rows)
        for (const auto& level : row.levels)
            for (const auto& group : level.stats.errors)
                out += fmt::format("  {} {}: {}× {}\n", row.row.name, level_name(level), group.count,
                                   group.error);
    if (!report.kv.empty()) {
        out += "KV path (rank 0 /metrics of every group, before -> after):\n";
        for (const auto& group : report.kv) out += kv_line(group) + "\n";
    }
    for (const auto& note : report.notes) out += "! " + note + "\n";
    if (report.passed()) {
        int requests = 0;
        for (const auto& row : report.rows)
            for (const auto& level : row.levels) requests += level.stats.ok;
        const auto unverified =
            std::count_if(report.kv.begin(), report.kv.end(),
                          [](const ops::KvCounters& group) { return !group.unavailable.empty(); });
        const std::string kv = !report.spec.soak ? ""
                               : unverified == 0 ? ", no KV failure counter rose"
                                                 : fmt::format(
                                                       ", no KV failure counter rose on the groups read ({} "
                                                       "unverified)",
                                                       unverified);
        out += fmt::format("✓ {} passed: {} requests, none failed{}\n", report.spec.soak ? "soak" : "bench",
                           requests, kv);
    } else {
        out += fmt::format("✗ {} failed:\n", report.spec.soak ? "soak" : "bench");
        for (const auto& problem : report.problems) out += "  " + problem + "\n";
    }
    return out;
}

namespace {

const char* test_name(ops::ChangeTest test) {
    switch (test) {
        case ops::ChangeTest::kRanks:
            return "mann-whitney-u";
        case ops::ChangeTest::kRuns:
            return "welch-t-log";
        case ops::ChangeTest::kPoint:
            return "point";
        case ops::ChangeTest::kNotGated:
            return "not-gated";
    }
    return "";
}

// An interval end that is infinite is no bound: null in JSON.
json bound(double value) {
    return std::isfinite(value) ? json(value) : json(nullptr);
}

json change_json(const ops::MetricChange& change) {
    json entry = {{"level", change.level},         {"metric", change.metric},
                  {"before", change.before},       {"now", change.now},
                  {"worse_by", change.worse_by},   {"regressed", change.regressed},
                  {"test", test_name(change.test)}};
    if (change.test != ops::ChangeTest::kPoint)
        entry["samples"] = {{"before", change.before_samples}, {"now", change.now_samples}};
    if (change.p_value) entry["p_value"] = *change.p_value;
    if (change.worse_low && change.worse_high)
        entry["worse_by_interval"] = {bound(*change.worse_low), bound(*change.worse_high)};
    if (!change.why_not_gated.empty()) entry["note"] = change.why_not_gated;
    return entry;
}

std::string percent_bound(double value) {
    if (std::isinf(value)) return value < 0 ? "-∞" : "+∞";
    return fmt::format("{:+.1f}%", value * 100);
}

// How the change was judged, after its numbers: the p-value and the interval, or why it is not gated.
std::string judged(const ops::MetricChange& change, double confidence) {
    std::string text;
    if (change.p_value) text = fmt::format("p={:.2g}", *change.p_value);
    if (change.worse_low && change.worse_high)
        text += fmt::format(", worse by {}..{} ({:g}%)", percent_bound(*change.worse_low),
                            percent_bound(*change.worse_high), confidence * 100);
    if (change.test == ops::ChangeTest::kRanks || change.test == ops::ChangeTest::kRuns)
        text += fmt::format(", {} and {} {}", change.before_samples, change.now_samples,
                            change.test == ops::ChangeTest::kRuns ? "runs" : "requests");
    if (!change.why_not_gated.empty()) text += (text.empty() ? "" : "; ") + change.why_not_gated;
    return text;
}

}  // namespace

json bench_to_json(const ops::BenchReport& report, const ops::BenchComparison* comparison) {
    json document = ops::bench_record(report);
    if (comparison != nullptr) {
        json changes = json::array();
        for (const auto& change : comparison->changes) changes.push_back(change_json(change));
        document["comparison"] = {
            {"against", comparison->against},
            {"max_regress", comparison->max_regress},
            {"alpha", comparison->alpha},
            {"interval_confidence", 1 - 2 * comparison->alpha},
            {"method",
             "regressed: median worse than max_regress and significant at alpha; one-sided Mann-Whitney U "
             "on per-request samples, one-sided Welch t on log per-run output throughput"},
            {"without_interval", comparison->without_interval},
            {"regressed", comparison->regressed()},
            {"changes", changes},
            {"unmatched", comparison->unmatched}};
        document["ok"] = report.passed() && !comparison->regressed();
    }
    return document;
}

std::string render_bench_comparison(const ops::BenchComparison& comparison) {
    const double confidence = 1 - 2 * comparison.alpha;
    std::string out = fmt::format(
        "against {} (a metric regresses when its median is more than {:g}% worse and the change is "
        "significant, p < {:g}):\n",
        comparison.against, comparison.max_regress * 100, comparison.alpha);
    auto changes = comparison.changes;
    std::stable_sort(
        changes.begin(), changes.end(),
        [](const ops::MetricChange& a, const ops::MetricChange& b) { return a.worse_by > b.worse_by; });
    for (const auto& change : changes) {
        // ✗ regressed; ? worse than allowed but not shown to be more than noise; ↑ better by more than it.
        const char* mark = change.regressed                            ? "✗"
                           : change.worse_by > comparison.max_regress  ? "?"
                           : change.worse_by < -comparison.max_regress ? "↑"
                                                                       : " ";
        // Rates as they are, times in milliseconds.
        const bool rate = change.metric.find("tok/s") != std::string::npos;
        const auto shown = [rate](double value) {
            return rate ? fmt::format("{:.1f}", value) : fmt::format("{:.2f} ms", value * 1e3);
        };
        out += fmt::format("  {} {:<18} {:<18} {:>12} -> {:<12} {:+6.1f}%  {}\n", mark, change.level,
                           change.metric, shown(change.before), shown(change.now),
                           (change.now - change.before) / change.before * 100, judged(change, confidence));
    }
    for (const auto& level : comparison.unmatched)
        out += fmt::format("  · {}: not in the baseline, nothing to compare\n", level);
    if (comparison.without_interval)
        out +=
            "  · the baseline kept no per-request samples (an older record): its levels are compared median "
            "against median, without an interval\n";
    if (comparison.regressed()) {
        int regressed = 0;
        for (const auto& change : changes) regressed += change.regressed ? 1 : 0;
        out +=
            fmt::format("✗ regressed: {} metric{} worse than {:g}% allows, each significant at p < {:g}\n",
                        regressed, regressed == 1 ? "" : "s", comparison.max_regress * 100, comparison.alpha);
    } else {
        out +=
            fmt::format("✓ no metric significantly worse than {:g}% allows\n", comparison.max_regress * 100);
    }
    return out;
}

JunitSuite bench_to_junit(const ops::BenchReport& report, const ops::BenchComparison* comparison,
                          const std::string& timestamp, double seconds) {
    JunitSuite suite;
    suite.name = report.spec.soak ? "pdctl bench --soak" : "pdctl bench";
    suite.timestamp = timestamp;
    suite.seconds = seconds;
    for (const auto& row : report.rows) {
        for (const auto& level : row.levels) {
            const std::string key = ops::level_key(row.row.name, level.concurrency, level.rate);
            JunitCase test;
            test.classname = "pdctl.bench." + row.row.name;
            test.name = key;
            test.seconds = level.stats.duration_s;
            test.output =
                fmt::format("{} ok, {} failed; TTFT p50 {:.1f} ms, ITL p50 {:.1f} ms, output {:.1f} tok/s",
                            level.stats.ok, level.stats.failed, level.stats.ttft.p50 * 1e3,
                            level.stats.itl.p50 * 1e3, level.stats.output_throughput);
            std::vector<std::string> failures;
            if (level.stats.failed > 0)
                failures.push_back(fmt::format("{} of {} requests failed: {}× {}", level.stats.failed,
                                               level.stats.failed + level.stats.ok,
                                               level.stats.errors.front().count,
                                               level.stats.errors.front().error));
            if (comparison != nullptr)
                for (const auto& change : comparison->changes)
                    if (change.level == key && change.regressed)
                        failures.push_back(fmt::format(
                            "{} {:.4g} -> {:.4g}: worse by {:.1f}% (allowed {:g}%), {}", change.metric,
                            change.before, change.now, change.worse_by * 100, comparison->max_regress * 100,
                            judged(change, 1 - 2 * comparison->alpha)));
            if (!failures.empty()) {
                test.failure = failures.front();
                for (const auto& failure : failures) test.failure_text += failure + "\n";
            }
            suite.cases.push_back(std::move(test));
        }
    }
    if (report.spec.soak)
        for (const auto& problem : report.problems)
            if (problem.find("rose by") != std::string::npos) suite.output += problem + "\n";
    return suite;
}

std::string render_bench_progress(const ops::BenchProgress& progress) {
    const std::string level = load::level_label(progress.concurrency, progress.rate);
    return fmt::format("{} {} · {} done, {} failed, {} in flight · p50 e2e {:.2f} s · {:.0f} s",
                       progress.row ? progress.row->name : "", level, progress.load.done,
                       progress.load.failed, progress.load.in_flight, progress.load.p50_e2e_s,
                       progress.load.elapsed_s);
}

std::string render_bench_outcome(const ops::BenchOutcome& outcome) {
    std::string text = render_bench(outcome.report);
    if (outcome.comparison) text += render_bench_comparison(*outcome.comparison);
    return text + fmt::format("journaled as run {} (compare a later run with `pdctl bench --vs {}`)\n",
                              outcome.run_id, outcome.run_id);
}

nlohmann::json bench_outcome_to_json(const ops::BenchOutcome& outcome) {
    auto document = bench_to_json(outcome.report, outcome.comparison ? &*outcome.comparison : nullptr);
    document["run"] = outcome.run_id;
    return document;
}

}  // namespace pdctl::report

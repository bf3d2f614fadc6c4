#include "pdctl/ops/bench_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "pdctl/load/significance.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {
namespace {

using json = nlohmann::json;

// The samples a metric is tested on, each as a cost (higher is worse): a rate's samples are turned into
// their reciprocals, which leaves a rank test's answer as it is and makes one ratio describe both kinds.
enum class Samples { kTtft, kItl, kTpot, kE2e, kSecondsPerInputToken, kRunThroughput };

struct Metric {
    const char* name;
    const char* field;
    const char* statistic;  // "" for a plain number
    bool higher_is_better;
    Samples samples;
};

// What a deployment that got slower moves: latencies up, rates and throughput down. Decode tok/s per
// request is 1 / TPOT, so it is tested on TPOT's samples; prefill tok/s is input / TTFT.
constexpr Metric kMetrics[] = {
    {"TTFT p50", "ttft_s", "p50", false, Samples::kTtft},
    {"ITL p50", "itl_s", "p50", false, Samples::kItl},
    {"TPOT p50", "tpot_s", "p50", false, Samples::kTpot},
    {"E2E p50", "e2e_s", "p50", false, Samples::kE2e},
    {"prefill tok/s p50", "input_tok_s_per_request", "p50", true, Samples::kSecondsPerInputToken},
    {"decode tok/s p50", "output_tok_s_per_request", "p50", true, Samples::kTpot},
    {"output tok/s", "output_throughput", "", true, Samples::kRunThroughput},
};

std::optional<double> number(const json& level, const Metric& metric) {
    const auto it = level.find(metric.field);
    if (it == level.end()) return std::nullopt;
    const json& value =
        *metric.statistic != '\0' && it->is_object() ? it->value(metric.statistic, json()) : *it;
    return value.is_number() ? std::optional(value.get<double>()) : std::nullopt;
}

std::vector<double> positive_numbers(const json& samples, const char* field) {
    std::vector<double> values;
    const auto it = samples.find(field);
    if (it == samples.end() || !it->is_array()) return values;
    for (const auto& value : *it)
        if (value.is_number() && value.get<double>() > 0) values.push_back(value.get<double>());
    return values;
}

// The metric's costs from a level's samples; nullopt when the record kept none (an older record).
std::optional<std::vector<double>> costs(const json& level, Samples which) {
    const auto it = level.find("samples");
    if (it == level.end() || !it->is_object()) return std::nullopt;
    const json& samples = *it;
    switch (which) {
        case Samples::kTtft:
            return positive_numbers(samples, "ttft_s");
        case Samples::kItl:
            return positive_numbers(samples, "itl_s");
        case Samples::kTpot:
            return positive_numbers(samples, "tpot_s");
        case Samples::kE2e:
            return positive_numbers(samples, "e2e_s");
        case Samples::kSecondsPerInputToken: {
            std::vector<double> values;
            const json ttft = samples.value("ttft_s", json::array());
            const json input = samples.value("input_tokens", json::array());
            for (std::size_t i = 0; i < ttft.size() && i < input.size(); ++i)
                if (ttft[i].is_number() && input[i].is_number() && input[i].get<double>() > 0 &&
                    ttft[i].get<double>() > 0)
                    values.push_back(ttft[i].get<double>() / input[i].get<double>());
            return values;
        }
        case Samples::kRunThroughput: {
            std::vector<double> values;
            for (double throughput : positive_numbers(samples, "output_throughput_per_run"))
                values.push_back(1 / throughput);
            return values;
        }
    }
    return std::nullopt;
}

// The cost ratio now / before as the metric's own "worse by": a latency's ratio minus one; for a rate,
// 1 - before's cost / now's cost. Infinite ends stay infinite (no bound).
double worse_by_of_cost_ratio(double ratio, bool higher_is_better) {
    if (!higher_is_better) return std::isinf(ratio) ? ratio : ratio - 1;
    if (ratio <= 0) return -std::numeric_limits<double>::infinity();
    return std::isinf(ratio) ? 1 : 1 - 1 / ratio;
}

// The test and its verdict for one metric whose samples both records kept.
void judge_with_samples(MetricChange& change, const Metric& metric, const std::vector<double>& before,
                        const std::vector<double>& now, double max_regress) {
    const double confidence = 1 - 2 * kGateAlpha;
    change.before_samples = static_cast<int>(before.size());
    change.now_samples = static_cast<int>(now.size());
    load::RatioInterval ratio;
    if (metric.samples == Samples::kRunThroughput) {
        if (std::min(before.size(), now.size()) < static_cast<std::size_t>(kGateMinRuns)) {
            change.test = ChangeTest::kNotGated;
            change.why_not_gated = fmt::format(
                "{} and {} runs: throughput is tested from {} runs a side on "
                "(--repeat {})",
                before.size(), now.size(), kGateMinRuns, kGateMinRuns);
            return;
        }
        const auto test = load::welch_log_greater(before, now, confidence);
        change.test = ChangeTest::kRuns;
        change.p_value = test.p_value;
        ratio = test.ratio;
    } else {
        const auto test = load::mann_whitney_greater(before, now, confidence);
        change.p_value = test.p_value;
        ratio = test.ratio;
        change.test = ChangeTest::kRanks;
        if (load::mann_whitney_smallest_p(change.before_samples, change.now_samples) >= kGateAlpha) {
            change.test = ChangeTest::kNotGated;
            change.why_not_gated =
                fmt::format("{} and {} requests: too few for any change to be significant at {:g}%",
                            before.size(), now.size(), kGateAlpha * 100);
        }
    }
    // A rate's worse_by falls as its cost ratio rises: the ends swap.
    const double low = worse_by_of_cost_ratio(ratio.low, metric.higher_is_better);
    const double high = worse_by_of_cost_ratio(ratio.high, metric.higher_is_better);
    change.worse_low = std::min(low, high);
    change.worse_high = std::max(low, high);
    change.regressed =
        change.test != ChangeTest::kNotGated && change.worse_by > max_regress && *change.p_value < kGateAlpha;
}

const json* row_of(const json& record, const std::string& name) {
    const auto rows = record.find("rows");
    if (rows == record.end() || !rows->is_array()) return nullptr;
    for (const auto& row : *rows)
        if (row.is_object() && row.value("name", "") == name) return &row;
    return nullptr;
}

}  // namespace

bool BenchComparison::regressed() const {
    return std::any_of(changes.begin(), changes.end(),
                       [](const MetricChange& change) { return change.regressed; });
}

BenchComparison compare_bench(const std::vector<RecordedLevel>& baseline,
                              const std::vector<RecordedLevel>& current, double max_regress,
                              const std::string& against) {
    BenchComparison comparison;
    comparison.against = against;
    comparison.max_regress = max_regress;
    for (const auto& level : current) {
        // The same row (name and shape) at the same load.
        const auto before = std::find_if(baseline.begin(), baseline.end(), [&](const RecordedLevel& other) {
            return other.key == level.key && other.row == level.row &&
                   other.input_tokens == level.input_tokens && other.output_tokens == level.output_tokens;
        });
        if (before == baseline.end()) {
            comparison.unmatched.push_back(level.key);
            continue;
        }
        // A level where every request failed has no latencies: its failures are the bench's own verdict.
        if (level.numbers.value("ok", 0) == 0 || before->numbers.value("ok", 0) == 0) continue;
        for (const Metric& metric : kMetrics) {
            const auto was = number(before->numbers, metric);
            const auto is = number(level.numbers, metric);
            if (!was || !is || *was <= 0) continue;
            MetricChange change;
            change.level = level.key;
            change.metric = metric.name;
            change.before = *was;
            change.now = *is;
            change.higher_is_better = metric.higher_is_better;
            change.worse_by = metric.higher_is_better ? (*was - *is) / *was : (*is - *was) / *was;
            const auto samples_before = costs(before->numbers, metric.samples);
            const auto samples_now = costs(level.numbers, metric.samples);
            if (samples_before && samples_now) {
                judge_with_samples(change, metric, *samples_before, *samples_now, max_regress);
            } else {
                // An older record kept no samples: the median against the median, as it was then.
                change.test = ChangeTest::kPoint;
                change.why_not_gated = "no per-request samples in the baseline: no interval";
                change.regressed = change.worse_by > max_regress;
                comparison.without_interval = true;
            }
            comparison.changes.push_back(change);
        }
    }
    return comparison;
}

std::vector<std::string> bench_shape_differences(const json& baseline, const BenchSpec& spec) {
    std::vector<std::string> differences;
    const std::string scenario = baseline.value("scenario", spec.scenario);
    if (scenario != spec.scenario)
        differences.push_back(fmt::format("scenario: {} in the baseline, {} now", scenario, spec.scenario));
    const bool soak = baseline.value("soak", spec.soak);
    if (soak != spec.soak)
        differences.push_back(spec.soak ? "a bench in the baseline, a soak now"
                                        : "a soak in the baseline, a bench now");
    for (const auto& row : spec.rows) {
        const json* was = row_of(baseline, row.name);
        if (was == nullptr) {
            differences.push_back(fmt::format("row {}: not in the baseline", row.name));
            continue;
        }
        const int input = was->value("input_tokens", 0);
        const int output = was->value("output_tokens", 0);
        if (input != row.input_tokens)
            differences.push_back(
                fmt::format("row {}: input {} in the baseline, {} now", row.name, input, row.input_tokens));
        if (output != row.output_tokens)
            differences.push_back(fmt::format("row {}: output {} in the baseline, {} now", row.name, output,
                                              row.output_tokens));
    }
    for (const auto& row : baseline.value("rows", json::array())) {
        const std::string name = row.is_object() ? row.value("name", "") : "";
        if (std::none_of(spec.rows.begin(), spec.rows.end(),
                         [&](const BenchRow& now) { return now.name == name; }))
            differences.push_back(fmt::format("row {}: in the baseline, not now", name));
    }
    return differences;
}

double parse_regress_fraction(const std::string& text) {
    std::string digits = text;
    const bool percent = !digits.empty() && digits.back() == '%';
    if (percent) digits.pop_back();
    char* end = nullptr;
    const double value = std::strtod(digits.c_str(), &end);
    if (digits.empty() || *end != '\0' || !(value > 0))
        throw Failure(
            ExitCode::kUsage,
            fmt::format("--max-regress {}: a fraction worse a metric may get, e.g. 10% (or 0.1)", text));
    // "10" and "10%" are percent; "0.1" is a fraction.
    return percent || value >= 1 ? value / 100 : value;
}

}  // namespace pdctl::ops

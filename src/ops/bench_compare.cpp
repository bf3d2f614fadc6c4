#include "pdctl/ops/bench_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {
namespace {

struct Metric {
    const char* name;
    const char* field;
    const char* statistic;  // "" for a plain number
    bool higher_is_better;
};

// What a deployment that got slower moves: latencies up, rates and throughput down.
constexpr Metric kMetrics[] = {
    {"TTFT p50", "ttft_s", "p50", false},
    {"ITL p50", "itl_s", "p50", false},
    {"TPOT p50", "tpot_s", "p50", false},
    {"E2E p50", "e2e_s", "p50", false},
    {"prefill tok/s p50", "input_tok_s_per_request", "p50", true},
    {"decode tok/s p50", "output_tok_s_per_request", "p50", true},
    {"output tok/s", "output_throughput", "", true},
};

std::optional<double> number(const nlohmann::json& level, const Metric& metric) {
    const auto it = level.find(metric.field);
    if (it == level.end()) return std::nullopt;
    const nlohmann::json& value =
        *metric.statistic != '\0' && it->is_object() ? it->value(metric.statistic, nlohmann::json()) : *it;
    return value.is_number() ? std::optional(value.get<double>()) : std::nullopt;
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
        const auto before =
            std::find_if(baseline.begin(), baseline.end(),
                         [&](const RecordedLevel& candidate) { return candidate.key == level.key; });
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
            MetricChange change{level.key, metric.name, *was, *is, metric.higher_is_better, 0, false};
            change.worse_by = metric.higher_is_better ? (*was - *is) / *was : (*is - *was) / *was;
            change.regressed = change.worse_by > max_regress;
            comparison.changes.push_back(change);
        }
    }
    return comparison;
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

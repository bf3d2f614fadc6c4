#include "pdctl/load/row_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "pdctl/load/stream_tally.hpp"

namespace pdctl::load {

double percentile(std::vector<double> values, double q) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(rank));
    const auto above = std::min(below + 1, values.size() - 1);
    const double fraction = rank - static_cast<double>(below);
    return values[below] + (values[above] - values[below]) * fraction;
}

Percentiles percentiles(std::vector<double> values) {
    Percentiles out;
    if (values.empty()) return out;
    std::sort(values.begin(), values.end());
    out.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    // Sorted once; percentile() sorts a sorted copy cheaply.
    out.p50 = percentile(values, 50);
    out.p90 = percentile(values, 90);
    out.p99 = percentile(values, 99);
    return out;
}

RowStats summarize(const std::vector<RequestRecord>& records, double duration_s, int gpus) {
    RowStats stats;
    stats.duration_s = duration_s;
    std::vector<double> e2e, ttft, itl, tpot, input_rate, output_rate;
    std::map<std::string, std::size_t> group_index;
    for (const RequestRecord& record : records) {
        if (!record.ok()) {
            ++stats.failed;
            const std::string key = error_group(record.error);
            auto [it, added] = group_index.emplace(key, stats.errors.size());
            if (added) stats.errors.push_back({record.error, 0});
            ++stats.errors[it->second].count;
            continue;
        }
        ++stats.ok;
        stats.input_tokens += record.input_tokens;
        stats.output_tokens += record.output_tokens;
        if (record.cached_tokens >= 0) {
            ++stats.cache_reported;
            stats.cached_tokens += record.cached_tokens;
            stats.counted_prompt_tokens +=
                record.prompt_tokens >= 0 ? record.prompt_tokens : record.input_tokens;
        }
        e2e.push_back(record.e2e_s);
        ttft.push_back(record.ttft_s);
        itl.insert(itl.end(), record.itl_s.begin(), record.itl_s.end());
        if (record.output_tokens > 1) {
            tpot.push_back(record.tpot_s());
            if (record.tpot_s() > 0) output_rate.push_back(1.0 / record.tpot_s());
        }
        if (record.ttft_s > 0) input_rate.push_back(record.input_tokens / record.ttft_s);
    }
    std::stable_sort(stats.errors.begin(), stats.errors.end(),
                     [](const ErrorGroup& a, const ErrorGroup& b) { return a.count > b.count; });
    stats.e2e = percentiles(std::move(e2e));
    stats.ttft = percentiles(std::move(ttft));
    stats.itl = percentiles(std::move(itl));
    stats.tpot = percentiles(std::move(tpot));
    stats.input_tok_s = percentiles(std::move(input_rate));
    stats.output_tok_s = percentiles(std::move(output_rate));
    if (duration_s > 0) {
        stats.request_throughput = stats.ok / duration_s;
        stats.input_throughput = static_cast<double>(stats.input_tokens) / duration_s;
        stats.output_throughput = static_cast<double>(stats.output_tokens) / duration_s;
        if (gpus > 0) stats.output_throughput_per_gpu = stats.output_throughput / gpus;
    }
    return stats;
}

}  // namespace pdctl::load

#pragma once
// `pdctl bench --svg FILE` / `--html FILE`: a bench run drawn from its record (ops/bench_record.hpp), so
// a run from the journal draws as well as the one just made. Self-contained (no script, network, font
// or style sheet); deterministic text for one record: golden-tested, and rendered by headless chromium
// in tests/render.
//   - latency per row and level: TTFT and ITL, p50 dark over p90 and p99 lighter, each on its own scale;
//   - output tokens/s against concurrency, one line per row;
//   - the HTML adds the table the original experiment's README had (row, sizes, e2e, prefill and
//     decode tok/s) and the KV path's counters.

#include <nlohmann/json.hpp>
#include <string>

namespace pdctl::report {

// For the rendered-image test: the p50 bars are this colour, one horizontal band per row and level.
inline constexpr const char* kBenchP50Colour = "#3182bd";
constexpr int kBenchSvgWidth = 960;

std::string render_bench_svg(const nlohmann::json& record);
std::string render_bench_html(const nlohmann::json& record);

}  // namespace pdctl::report

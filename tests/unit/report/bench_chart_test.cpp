// The bench chart from a recorded run (tests/golden/bench/record.json, from `pdctl --json bench --file`
// on the simulated cluster): pinned SVG and HTML; tests/render/bench_render.sh looks at them in chromium.
#include "pdctl/report/bench_chart.hpp"

#include <gtest/gtest.h>

#include "unit/support/build_paths.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::report {
namespace {

const std::filesystem::path kGolden =
    std::filesystem::path(pdctl::testing::source_dir()) / "tests" / "golden" / "bench";

nlohmann::json record() {
    return nlohmann::json::parse(pdctl::testing::read_text_file(kGolden / "record.json"));
}

TEST(BenchChart, TheSvgDrawsEveryRowAndLevelAndIsPinned) {
    const std::string svg = render_bench_svg(record());
    pdctl::testing::expect_golden(kGolden / "record.svg", svg, "bench SVG");
    // Two rows at three levels: six p50 bars in each of the TTFT and ITL panels, two throughput lines.
    std::size_t p50 = 0;
    for (auto at = svg.find(kBenchP50Colour); at != std::string::npos; at = svg.find(kBenchP50Colour, at + 1))
        ++p50;
    EXPECT_EQ(p50, 12u);
    EXPECT_NE(svg.find(">chat c=4<"), std::string::npos);
    EXPECT_NE(svg.find(">rag c=1<"), std::string::npos);
    std::size_t lines = 0;
    for (auto at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1))
        ++lines;
    EXPECT_EQ(lines, 2u);
}

TEST(BenchChart, TheHtmlHasTheExperimentsTableAndIsPinned) {
    const std::string html = render_bench_html(record());
    pdctl::testing::expect_golden(kGolden / "record.html", html, "bench HTML");
    EXPECT_NE(html.find("<td>rag</td><td>3000 → 4</td><td>c=2</td>"), std::string::npos);
    EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(BenchChart, ARecordWithoutRowsStillDraws) {
    const std::string svg = render_bench_svg(nlohmann::json{{"cluster", "x"}});
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_EQ(svg.find(kBenchP50Colour), std::string::npos);
}

}  // namespace
}  // namespace pdctl::report

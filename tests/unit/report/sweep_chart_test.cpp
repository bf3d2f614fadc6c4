// The sweep's Pareto chart and table, from a sweep document (tests/golden/bench/sweep.json, from
// `pdctl --json bench --sweep` on the simulated cluster): pinned SVG and HTML; tests/render looks at
// them in chromium.
#include "pdctl/report/sweep_chart.hpp"

#include <gtest/gtest.h>

#include "unit/support/build_paths.hpp"
#include "unit/support/golden.hpp"

namespace pdctl::report {
namespace {

const std::filesystem::path kSweepGoldens =
    std::filesystem::path(pdctl::testing::source_dir()) / "tests" / "golden" / "bench";

nlohmann::json sweep() {
    return nlohmann::json::parse(pdctl::testing::read_text_file(kSweepGoldens / "sweep.json"));
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(SweepChart, TheSvgDrawsEveryConfigsLevelsOnBothPanelsAndIsPinned) {
    const auto document = sweep();
    const std::string svg = render_sweep_svg(document);
    pdctl::testing::expect_golden(kSweepGoldens / "sweep.svg", svg, "sweep SVG");
    std::size_t levels = 0;
    for (const auto& standing : document["ranking"]) levels += standing["points"].size();
    // A mark per level on each of the two panels, and one in the legend per config.
    EXPECT_EQ(count(svg, "<circle"), 2 * levels + document["ranking"].size());
    for (std::size_t c = 0; c < document["ranking"].size(); ++c)
        EXPECT_NE(svg.find(kSweepColours[c]), std::string::npos) << c;
    EXPECT_NE(svg.find("1. 2p2d.yaml 2P:2D"), std::string::npos);
}

TEST(SweepChart, TheHtmlHasTheStandingsAndIsPinned) {
    const std::string html = render_sweep_html(sweep());
    pdctl::testing::expect_golden(kSweepGoldens / "sweep.html", html, "sweep HTML");
    EXPECT_NE(html.find("<td>1</td><td>2p2d.yaml</td><td>2P:2D</td>"), std::string::npos);
    EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(SweepChart, ASweepWithoutStandingsStillDraws) {
    const std::string svg = render_sweep_svg(nlohmann::json::object());
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_EQ(svg.find("<circle"), std::string::npos);
}

}  // namespace
}  // namespace pdctl::report

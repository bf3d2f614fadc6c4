// `pdctl timeline`'s views of the fixed journal (tests/golden/timeline/start.journal.jsonl), pinned by
// golden files. Regenerate after an intended change with:
//   PDCTL_UPDATE_GOLDEN=1 build/tests/pdctl_unit_tests --gtest_filter='TimelineView*'
#include "pdctl/report/timeline_view.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pdctl/report/timeline_svg.hpp"

namespace pdctl::report {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(pdctl::testing::source_dir()) / "tests" / "golden" / "timeline";

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<timeline::RunTimeline> runs() {
    return timeline::read_timelines(read_file(kDir / "start.journal.jsonl"));
}

void expect_golden(const std::string& name, const std::string& actual) {
    const auto golden = kDir / name;
    if (std::getenv("PDCTL_UPDATE_GOLDEN")) {
        std::ofstream(golden, std::ios::binary) << actual;
        return;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with PDCTL_UPDATE_GOLDEN=1";
    EXPECT_EQ(read_file(golden), actual)
        << golden << " changed (PDCTL_UPDATE_GOLDEN=1 rewrites it if intended)";
}

TEST(TimelineView, TerminalChartOfASlowRankMatchesGolden) {
    expect_golden("slow-rank.txt", render_timeline_text(runs()[0], {100, false, 0}));
}

TEST(TimelineView, TerminalComparisonMatchesGolden) {
    const auto all = runs();
    expect_golden("slow-rank-vs-clean.txt", render_timeline_comparison(all[0], all[1], {100, false, 0}));
}

TEST(TimelineView, FailedStartMatchesGolden) {
    expect_golden("failed.txt", render_timeline_text(runs()[2], {100, false, 0}));
}

TEST(TimelineView, SvgMatchesGolden) {
    expect_golden("slow-rank.svg", render_timeline_svg({runs()[0]}));
}

TEST(TimelineView, SvgOfTwoRunsAndOfAFailureMatchGolden) {
    const auto all = runs();
    expect_golden("slow-rank-vs-failed.svg", render_timeline_svg({all[0], all[2]}));
}

TEST(TimelineView, HtmlMatchesGoldenAndIsSelfContained) {
    const auto html = render_timeline_html({runs()[0]});
    expect_golden("slow-rank.html", html);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"))
        << "no link but the SVG namespace";
    EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(TimelineView, ColourWrapsEachSegmentAndTheLettersStay) {
    const auto text = render_timeline_text(runs()[0], {100, true, 0});
    EXPECT_NE(text.find("\x1b[48;5;32m\x1b[38;5;16mW\x1b[0m"), std::string::npos) << "loading weights, blue";
}

TEST(TimelineView, NodeNamesAreEscapedInTheSvg) {
    auto all = runs();
    all[0].stages[0].units[0].node = "n<1>&";
    const auto svg = render_timeline_svg({all[0]});
    EXPECT_EQ(svg.find("n<1>"), std::string::npos);
    EXPECT_NE(svg.find("n&lt;1&gt;&amp;"), std::string::npos);
}

TEST(TimelineView, JsonCarriesPhasesRelativeToTheRunAndTheCriticalPath) {
    const auto document = timeline_to_json(runs()[0]);
    EXPECT_EQ(document["stages"][1]["role"], "prefill");
    EXPECT_EQ(document["stages"][1]["units"][2]["critical"], true);
    EXPECT_EQ(document["stages"][0]["begin_ms"], 0);
    EXPECT_EQ(document["critical_path"],
              "mooncake-master 2.4s → prefill n3 rank 2 14m41s → decode n5 rank 0 11m41s → router 14.0s");
}

}  // namespace
}  // namespace pdctl::report

#include "pdctl/report/timeline_style.hpp"
#include "pdctl/runtime/startup_phase.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::report {
namespace {

TEST(TimelineStyle, EveryStartUpPhaseHasALetterAndAColour) {
    for (int p = static_cast<int>(runtime::Phase::kStarting); p <= static_cast<int>(runtime::Phase::kFailed);
         ++p) {
        const auto id = runtime::phase_id(static_cast<runtime::Phase>(p));
        EXPECT_NE(phase_style(id).letter, '?') << id;
    }
}

}  // namespace
}  // namespace pdctl::report

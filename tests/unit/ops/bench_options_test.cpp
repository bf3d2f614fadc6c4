// The pure parts of the bench's open-loop options: --slo, the saturation search, and the request lines
// of --save-requests.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pdctl/ops/bench_requests.hpp"
#include "pdctl/ops/bench_slo.hpp"
#include "pdctl/ops/rate_search.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {
namespace {

TEST(SloFlag, ReadsEveryObjectiveAndSaysWhatIsWrong) {
    const auto slo = parse_slo("ttft=2s, itl=50ms,e2e=1m");
    EXPECT_DOUBLE_EQ(*slo.ttft_s, 2.0);
    EXPECT_DOUBLE_EQ(*slo.itl_s, 0.05);
    EXPECT_DOUBLE_EQ(*slo.e2e_s, 60.0);
    EXPECT_FALSE(slo.tpot_s);
    EXPECT_EQ(describe_slo(slo), "TTFT ≤ 2s, ITL p99 ≤ 50ms, E2E ≤ 1m");
    for (const auto& [text, says] :
         {std::pair{"ttft=2s,latency=1s", "'latency' is not an objective (ttft, itl, tpot, e2e)"},
          {"ttft=fast", "ttft=fast is not a duration"},
          {"ttft=0s", "ttft=0s is not a duration above 0"},
          {"ttft=1s,ttft=2s", "ttft is given twice"}}) {
        try {
            parse_slo(text);
            ADD_FAILURE() << text;
        } catch (const Failure& failure) {
            EXPECT_EQ(failure.code(), ExitCode::kUsage);
            EXPECT_NE(std::string(failure.what()).find(says), std::string::npos) << failure.what();
        }
    }
}

// The search against a deployment that holds up to `capacity` requests a second.
std::vector<double> search_against(double capacity, RateSearch& search) {
    std::vector<double> tried;
    while (const auto rate = search.next()) {
        tried.push_back(*rate);
        search.record(*rate, *rate <= capacity);
        if (tried.size() > 30) break;
    }
    return tried;
}

TEST(RateSearch, DoublesUntilTheSloBreaksThenNarrowsTheBracketTwice) {
    RateSearch search;
    const auto tried = search_against(5.0, search);
    // 1, 2, 4 hold; 8 does not; sqrt(4*8) = 5.66 does not; sqrt(4*5.66) = 4.76 holds.
    ASSERT_EQ(tried.size(), 6u);
    EXPECT_DOUBLE_EQ(tried[3], 8);
    EXPECT_DOUBLE_EQ(tried[4], 5.66);  // rounded to three digits: a rate to read and type again
    EXPECT_DOUBLE_EQ(tried[5], 4.76);
    EXPECT_DOUBLE_EQ(*search.saturation(), 4.76);
    EXPECT_DOUBLE_EQ(*search.first_failing(), 5.66);
}

TEST(RateSearch, GoesDownWhenEvenTheStartFailsAndSaysWhenNothingHeld) {
    RateSearch search;
    const auto tried = search_against(0.3, search);
    EXPECT_DOUBLE_EQ(tried[0], 1);
    EXPECT_DOUBLE_EQ(tried[1], 0.5);
    EXPECT_DOUBLE_EQ(tried[2], 0.25);
    ASSERT_TRUE(search.saturation());
    EXPECT_LE(*search.saturation(), 0.3);

    RateSearch hopeless;
    const auto down = search_against(0.01, hopeless);
    EXPECT_EQ(down, (std::vector<double>{1, 0.5, 0.25, 0.125}));
    EXPECT_FALSE(hopeless.saturation());
}

TEST(RateSearch, StopsAtTheCeilingWhenEverythingHolds) {
    RateSearch search(1.0, 16);
    const auto tried = search_against(1000, search);
    EXPECT_EQ(tried, (std::vector<double>{1, 2, 4, 8, 16}));
    EXPECT_DOUBLE_EQ(*search.saturation(), 16);
    EXPECT_FALSE(search.first_failing());
}

TEST(SaveRequests, OneLinePerMeasuredRequestWithItsRunAndEveryGap) {
    BenchReport report;
    BenchRowResult row{unique_row("medium", 1680, 3), {}};
    BenchLevel level;
    level.concurrency = 2;
    load::RequestRecord first;
    first.input_tokens = 1680;
    first.output_tokens = 3;
    first.ttft_s = 0.5;
    first.itl_s = {0.01, 0.02};
    first.e2e_s = 0.53;
    first.cached_tokens = 0;
    first.prompt_tokens = 1680;
    load::RequestRecord second = first;
    second.error = "HTTP 503: no worker";
    second.cached_tokens = -1;
    load::RequestRecord third = first;
    level.records = {first, second, third};
    load::RowStats run;
    run.ok = 1;
    run.failed = 1;
    load::RowStats run2;
    run2.ok = 1;
    level.runs = {run, run2};
    row.levels.push_back(level);
    report.rows.push_back(row);

    const std::string text = request_lines(report);
    std::vector<nlohmann::json> lines;
    std::size_t begin = 0;
    for (std::size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1)
        lines.push_back(nlohmann::json::parse(text.substr(begin, end - begin)));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0]["level"], "medium c=2");
    EXPECT_EQ(lines[0]["run"], 1);
    EXPECT_EQ(lines[0]["itl_s"], nlohmann::json({0.01, 0.02}));
    EXPECT_EQ(lines[0]["cached_tokens"], 0);
    EXPECT_EQ(lines[0]["ok"], true);
    EXPECT_EQ(lines[1]["error"], "HTTP 503: no worker");
    EXPECT_TRUE(lines[1]["cached_tokens"].is_null());
    EXPECT_EQ(lines[2]["run"], 2);
}

}  // namespace
}  // namespace pdctl::ops

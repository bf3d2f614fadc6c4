// report/pull_view: the text lines and JSON Lines of `pdctl pull`.
#include "pdctl/report/pull_view.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

namespace pdctl::report {
namespace {

using ::testing::HasSubstr;
const std::string kGood = "sha256:3f2a9c1b7e4d11111111111111111111111111111111111111111111111111";
const std::string kOther = "sha256:9999aaaabbbb22222222222222222222222222222222222222222222222222";

std::string render(bool as_json, const std::function<void(PullPrinter&)>& fn) {
    char* buffer = nullptr;
    std::size_t size = 0;
    std::FILE* out = ::open_memstream(&buffer, &size);
    util::Redactor redactor;
    PullPrinter printer(out, as_json, redactor);
    fn(printer);
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
}

pull::ImageOutcome outcome(pull::ImageOutcome::Status status, std::string id, std::string error = {}) {
    pull::ImageOutcome image;
    image.image = {"10.77.0.254:5000/pdctl/pdsim:test", "podman"};
    image.status = status;
    image.id = std::move(id);
    image.error = std::move(error);
    image.elapsed = std::chrono::milliseconds(41200);
    return image;
}

pull::PullResult failed_result() {
    pull::PullResult result;
    result.elapsed = std::chrono::milliseconds(80000);
    result.nodes = {{"n1", {outcome(pull::ImageOutcome::Status::Pulled, kGood)}, false, {}},
                    {"n2", {outcome(pull::ImageOutcome::Status::Present, kGood)}, false, {}},
                    {"n3", {outcome(pull::ImageOutcome::Status::Failed, "", "manifest unknown")}, false, {}},
                    {"n4", {outcome(pull::ImageOutcome::Status::Pulled, kOther)}, false, {}}};
    result.mismatches = {{{"10.77.0.254:5000/pdctl/pdsim:test", "podman"}, "n4", kOther, kGood}};
    return result;
}

TEST(PullView, TextLinesPerImageTickAndSummary) {
    const auto text = render(false, [](PullPrinter& printer) {
        printer.image_done("n1", outcome(pull::ImageOutcome::Status::Pulled, kGood), 1, 1);
        printer.image_done("n2", outcome(pull::ImageOutcome::Status::Present, kGood), 1, 1);
        printer.still_pulling("n3", {"10.77.0.254:5000/pdctl/pdsim:test", "podman"},
                              std::chrono::seconds(80));
        printer.end(failed_result());
    });
    EXPECT_THAT(text,
                HasSubstr("n1       1/1  pulled          10.77.0.254:5000/pdctl/pdsim:test  id 3f2a9c1b7e4d  "
                          "in 41.2s\n"));
    EXPECT_THAT(
        text, HasSubstr("n2       1/1  already present 10.77.0.254:5000/pdctl/pdsim:test  id 3f2a9c1b7e4d"));
    EXPECT_THAT(text, HasSubstr("n3       still pulling 10.77.0.254:5000/pdctl/pdsim:test (1m20s)\n"));
    EXPECT_THAT(text,
                HasSubstr("FAIL  2/4 nodes hold every image with the same ID; pulled 2, already present 1, "
                          "failed 1; 1m20s\n"));
    EXPECT_THAT(text, HasSubstr("  n3: 10.77.0.254:5000/pdctl/pdsim:test: manifest unknown\n"));
    EXPECT_THAT(text, HasSubstr("  n4: 10.77.0.254:5000/pdctl/pdsim:test: image ID 9999aaaabbbb differs from "
                                "3f2a9c1b7e4d (the ID most nodes have)\n"));
}

TEST(PullView, AllPulledIsOkWithTheImageId) {
    pull::PullResult result;
    result.nodes = {{"n1", {outcome(pull::ImageOutcome::Status::Pulled, kGood)}, false, {}}};
    const auto lines = pull_summary_lines(result);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].substr(0, 37), "OK    1/1 nodes hold every image with");
    EXPECT_EQ(lines[1], "  10.77.0.254:5000/pdctl/pdsim:test  id 3f2a9c1b7e4d");
}

TEST(PullView, JsonLinesCarryStatusIdsAndMismatches) {
    const auto text = render(true, [](PullPrinter& printer) {
        printer.begin({{{"n1", "10.0.0.1", {}, {}, {}}, {{"img:1", "podman"}}},
                       {{"n2", "10.0.0.2", {}, {}, {}}, {{"img:1", "podman"}}}});
        printer.image_done("n3", outcome(pull::ImageOutcome::Status::Failed, "", "manifest unknown"), 1, 1);
        printer.end(failed_result());
    });
    std::vector<nlohmann::json> events;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) events.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0]["event"], "pull_begin");
    EXPECT_EQ(events[0]["nodes"], 2);
    EXPECT_EQ(events[0]["images"][0]["image"], "img:1");
    EXPECT_EQ(events[1]["event"], "pull_image");
    EXPECT_EQ(events[1]["status"], "failed");
    EXPECT_EQ(events[1]["error"], "manifest unknown");
    EXPECT_EQ(events[2]["event"], "pull_end");
    EXPECT_EQ(events[2]["ok"], false);
    EXPECT_EQ(events[2]["nodes_complete"], 2);
    EXPECT_EQ(events[2]["ids"]["10.77.0.254:5000/pdctl/pdsim:test"], kGood);
    EXPECT_EQ(events[2]["mismatches"][0]["node"], "n4");
    EXPECT_EQ(events[2]["mismatches"][0]["majority"], kGood);
}

}  // namespace
}  // namespace pdctl::report

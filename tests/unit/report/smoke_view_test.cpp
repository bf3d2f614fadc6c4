// report/smoke_view: the lines and the JSON document of `pdctl smoke`.
#include "pdctl/report/smoke_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

SmokeCheck health_generate(std::string error = {}) {
    return {"health_generate",         "prefill", "n1", "http://10.0.0.1:30000/health_generate",
            error.empty() ? 200 : 503, 812,       "",   std::move(error)};
}

SmokeCheck generate(std::string error = {}) {
    return {"generate",
            "router",
            "n5",
            "http://10.0.0.5:31000/generate",
            error.empty() ? 200 : 0,
            1034,
            error.empty() ? " Paris." : "",
            std::move(error)};
}

TEST(SmokeView, OneLinePerCheck) {
    EXPECT_EQ(render_smoke_check_line(health_generate()),
              "✓ health_generate prefill rank0 on n1: 200 in 812 ms");
    EXPECT_EQ(render_smoke_check_line(health_generate("HTTP 503: loading")),
              "✗ health_generate prefill rank0 on n1 (http://10.0.0.1:30000/health_generate) failed after "
              "812 ms: HTTP 503: loading");
    EXPECT_EQ(render_smoke_check_line(generate()),
              "✓ smoke: POST http://10.0.0.5:31000/generate answered in 1034 ms:  Paris.");
    EXPECT_EQ(render_smoke_check_line(generate("no answer: Could not establish connection")),
              "✗ smoke: POST http://10.0.0.5:31000/generate failed after 1034 ms: no answer: Could not "
              "establish connection");
}

TEST(SmokeView, JsonListsTheChecksAndRepeatsTheGenerateAtTheTop) {
    const auto passed = smoke_to_json({health_generate(), generate()});
    EXPECT_EQ(
        passed.dump(),
        R"({"checks":[{"check":"health_generate","latency_ms":812,"node":"n1","ok":true,"role":"prefill",)"
        R"("status":200,"url":"http://10.0.0.1:30000/health_generate"},{"check":"generate",)"
        R"("latency_ms":1034,"node":"n5","ok":true,"role":"router","status":200,"text":" Paris.",)"
        R"("url":"http://10.0.0.5:31000/generate"}],"latency_ms":1034,"ok":true,"status":200,)"
        R"("text":" Paris.","url":"http://10.0.0.5:31000/generate"})");
    const auto failed = smoke_to_json({health_generate("HTTP 503: loading"), generate("no answer: Read")});
    EXPECT_EQ(failed["ok"], false);
    EXPECT_EQ(failed["error"], "no answer: Read");
    EXPECT_EQ(failed["checks"][0]["error"], "HTTP 503: loading");
    EXPECT_FALSE(ops::all_passed({health_generate(), generate("no answer: Read")}));
    EXPECT_TRUE(ops::all_passed({health_generate(), generate()}));
}

}  // namespace
}  // namespace pdctl::report

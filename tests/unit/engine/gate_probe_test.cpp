// One round of a gate: its checks in order, the first failure as the answer, and a router's worker
// list consulted to say what a 503 on /readiness means.
#include "pdctl/engine/gate_probe.hpp"

#include <gtest/gtest.h>

#include <map>

namespace pdctl::engine {
namespace {

// Answers by URL; records what was asked, in order.
class ScriptedProber : public health::HttpProber {
  public:
    std::map<std::string, health::ProbeResult> answers;
    std::vector<std::string> asked;

    health::ProbeResult get(const std::string& url, std::chrono::milliseconds /*timeout*/) override {
        asked.push_back("GET " + url);
        return answer(url);
    }
    health::ProbeResult post(const std::string& url, const std::string& /*body*/, const std::string& /*type*/,
                             const health::PostTimeouts& /*timeouts*/) override {
        asked.push_back("POST " + url);
        return answer(url);
    }

  private:
    health::ProbeResult answer(const std::string& url) {
        const auto found = answers.find(url);
        if (found != answers.end()) return found->second;
        health::ProbeResult refused;
        refused.error = "connection refused or unreachable";
        return refused;
    }
};

plan::Gate router_gate() {
    plan::Gate gate;
    gate.url = "http://r:8000/readiness";
    gate.checks = {
        {plan::CheckKind::Status, "http://r:8000/readiness", 200, {}, "router /readiness == 200"},
        {plan::CheckKind::Workers,
         "http://r:8000/workers",
         200,
         {"http://p:30000", "http://d:30000"},
         "workers"},
        {plan::CheckKind::Generate, "http://r:8000/generate", 200, {}, "generate"},
    };
    return gate;
}

const char* kBothHealthy =
    R"({"workers":[{"url":"http://p:30000","is_healthy":true},{"url":"http://d:30000","is_healthy":true}]})";

TEST(GateProbe, EveryCheckInOrderThenWhatEachSaw) {
    ScriptedProber prober;
    prober.answers["http://r:8000/readiness"] = {200, "{}", ""};
    prober.answers["http://r:8000/workers"] = {200, kBothHealthy, ""};
    prober.answers["http://r:8000/generate"] = {200, R"({"text":"the"})", ""};
    const auto answer = probe_gate(router_gate(), prober, {});
    EXPECT_TRUE(answer.passed);
    EXPECT_EQ(answer.answer, "HTTP 200, 2 workers healthy, /generate answered");
    EXPECT_EQ(prober.asked,
              (std::vector<std::string>{"GET http://r:8000/readiness", "GET http://r:8000/workers",
                                        "POST http://r:8000/generate"}));
}

TEST(GateProbe, WithoutTheRequestTheRouterIsJudgedByWhatItSaysAndNothingIsPosted) {
    ScriptedProber prober;
    prober.answers["http://r:8000/readiness"] = {200, "{}", ""};
    prober.answers["http://r:8000/workers"] = {200, kBothHealthy, ""};
    const auto answer = probe_gate(router_gate(), prober, {}, GenerateCheck::kSkip);
    EXPECT_TRUE(answer.passed);
    EXPECT_EQ(answer.answer, "HTTP 200, 2 workers healthy");
    EXPECT_EQ(prober.asked,
              (std::vector<std::string>{"GET http://r:8000/readiness", "GET http://r:8000/workers"}));
}

TEST(GateProbe, ARequestThatFailsOnTheKvPathIsMarkedAsSuch) {
    ScriptedProber prober;
    prober.answers["http://r:8000/readiness"] = {200, "{}", ""};
    prober.answers["http://r:8000/workers"] = {200, kBothHealthy, ""};
    prober.answers["http://r:8000/generate"] = {500, "KV transfer timed out (bootstrap_room=99187)", ""};
    const auto kv = probe_gate(router_gate(), prober, {});
    EXPECT_FALSE(kv.passed);
    EXPECT_TRUE(kv.kv_path_failure) << kv.answer;
    prober.answers["http://r:8000/generate"] = {500, "CUDA out of memory", ""};
    const auto other = probe_gate(router_gate(), prober, {});
    EXPECT_FALSE(other.passed);
    EXPECT_FALSE(other.kv_path_failure) << other.answer;
}

TEST(GateProbe, AReadinessRefusalIsExplainedByTheWorkerList) {
    ScriptedProber prober;
    prober.answers["http://r:8000/readiness"] = {503, R"({"status":"not ready"})", ""};
    prober.answers["http://r:8000/workers"] = {
        200, R"({"workers":[{"url":"http://p:30000","is_healthy":true}]})", ""};
    const auto answer = probe_gate(router_gate(), prober, {});
    EXPECT_FALSE(answer.passed);
    EXPECT_EQ(answer.answer, "HTTP 503; missing from /workers: http://d:30000");
    EXPECT_EQ(prober.asked.size(), 2u) << "no request is sent through a router that is not ready";
}

TEST(GateProbe, AFailedRequestIsTheAnswerWithItsOwnError) {
    ScriptedProber prober;
    prober.answers["http://r:8000/readiness"] = {200, "{}", ""};
    prober.answers["http://r:8000/workers"] = {200, kBothHealthy, ""};
    prober.answers["http://r:8000/generate"] = {500, R"({"error":"KV transfer timed out"})", ""};
    const auto answer = probe_gate(router_gate(), prober, {});
    EXPECT_FALSE(answer.passed);
    EXPECT_EQ(answer.answer, R"(POST /generate: HTTP 500: {"error":"KV transfer timed out"})");
}

TEST(GateProbe, AGateWithoutChecksIsItsOneGet) {
    ScriptedProber prober;
    plan::Gate gate;
    gate.url = "http://p:30000/health";
    EXPECT_EQ(probe_gate(gate, prober, {}).answer, "connection refused or unreachable");
    prober.answers[gate.url] = {200, "", ""};
    EXPECT_EQ(probe_gate(gate, prober, {}).answer, "HTTP 200");
}

}  // namespace
}  // namespace pdctl::engine

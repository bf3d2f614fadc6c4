// Each stage's dependency edges and the gate each one waits for, as `pdctl plan` shows them.
#include <gtest/gtest.h>

#include "pdctl/plan/builder.hpp"
#include "pdctl/report/plan_view.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::plan {
namespace {

config::Cluster cluster_with_decode_gate(config::DependencyGate gate) {
    auto cluster = testing::sample_cluster();
    for (auto& role : cluster.roles)
        if (role.name == "decode") role.narrow_gates["prefill"] = gate;
    return cluster;
}

TEST(PlanEdges, DerivedEdgesCopyTheDependencysReadinessGate) {
    const auto plan = build_plan(testing::sample_cluster());
    const auto& router = *plan.find_stage("router");
    ASSERT_EQ(router.edges.size(), 2u);
    EXPECT_EQ(router.edges[0].role, "prefill");
    EXPECT_EQ(router.edges[0].kind, GateKind::Ready);
    EXPECT_EQ(router.edges[0].gate.url, plan.find_stage("prefill")->gate.url);
    EXPECT_EQ(router.edges[1].gate.url, plan.find_stage("decode")->gate.url);
    EXPECT_EQ(router.after(), (std::vector<std::string>{"prefill", "decode"}));
    EXPECT_EQ(router.waits_for("mooncake-master"), GateKind::Ready) << "no edge: full readiness";
}

TEST(PlanEdges, BootstrapEdgeProbesPrefillRankZerosBootstrapServer) {
    const auto plan = build_plan(cluster_with_decode_gate(config::DependencyGate::Bootstrap));
    const auto& decode = *plan.find_stage("decode");
    ASSERT_EQ(decode.edges.size(), 1u);
    const auto& edge = decode.edges[0];
    EXPECT_EQ(edge.kind, GateKind::Bootstrap);
    // The sample prefill binds 0.0.0.0, so peers reach rank 0 at its node's address.
    EXPECT_EQ(edge.gate.url, "http://10.0.0.1:8998/health");
    EXPECT_EQ(edge.gate.expect_status, 200);
    EXPECT_EQ(edge.gate.node, "n1");
    EXPECT_EQ(edge.gate.deadline, plan.find_stage("prefill")->gate.deadline);
    EXPECT_EQ(decode.waits_for("prefill"), GateKind::Bootstrap);
    EXPECT_EQ(decode.gate.url, "http://10.0.0.5:30000/health") << "decode's own readiness is unchanged";
    // The stage order and the plan fingerprint do not depend on gates.
    EXPECT_EQ(plan.fingerprint, build_plan(testing::sample_cluster()).fingerprint);

    const auto text = report::render_plan_text(plan, "start");
    EXPECT_NE(
        text.find(
            "stage 3  decode ×4 (decode)  after prefill (bootstrap: GET 10.0.0.1:8998/health == 200)\n"),
        std::string::npos)
        << text;
}

TEST(PlanEdges, StartedEdgeProbesNothing) {
    const auto plan = build_plan(cluster_with_decode_gate(config::DependencyGate::Started));
    const auto& edge = plan.find_stage("decode")->edges.at(0);
    EXPECT_EQ(edge.kind, GateKind::Started);
    EXPECT_TRUE(edge.gate.url.empty());
    EXPECT_NE(report::render_plan_text(plan, "start").find("after prefill (started)\n"), std::string::npos);
}

TEST(PlanEdges, JsonShowsTheGatePerEdge) {
    const auto plan = build_plan(cluster_with_decode_gate(config::DependencyGate::Bootstrap));
    const auto doc = report::plan_to_json(plan, "start");
    const auto& decode = doc["stages"][2];
    ASSERT_EQ(decode["role"], "decode");
    EXPECT_EQ(decode["after"], nlohmann::json::array({"prefill"}));
    ASSERT_EQ(decode["edges"].size(), 1u);
    EXPECT_EQ(decode["edges"][0]["gate"], "bootstrap");
    EXPECT_EQ(decode["edges"][0]["url"], "http://10.0.0.1:8998/health");
    EXPECT_EQ(doc["stages"][3]["edges"][1]["gate"], "ready");
}

}  // namespace
}  // namespace pdctl::plan

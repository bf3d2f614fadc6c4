// observe() asks every named node in parallel. A plan filtered to one role (status --role) still
// names every node; the nodes it has no units on must be answered without touching shared state
// (the TSan pass runs this).
#include "pdctl/engine/observer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "pdctl/plan/builder.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::engine {
namespace {

TEST(Observe, APlanFilteredToOneRoleAsksOnlyItsNodesAndAnswersEveryNamedNode) {
    auto plan = plan::build_plan(testing::sample_cluster());
    const auto* prefill = plan.find_stage("prefill");
    ASSERT_NE(prefill, nullptr);
    std::set<std::string> prefill_nodes;
    for (const auto& unit : prefill->units) prefill_nodes.insert(unit.node);
    FakeClock clock;
    testing::FakeCluster nodes(plan, clock);
    for (const auto& unit : prefill->units) nodes.preload_running(unit, unit.fingerprint);

    auto filtered = plan;
    filtered.stages.erase(std::remove_if(filtered.stages.begin(), filtered.stages.end(),
                                         [](const plan::Stage& stage) { return stage.role != "prefill"; }),
                          filtered.stages.end());
    ASSERT_EQ(filtered.stages.size(), 1u);
    ASSERT_LT(prefill_nodes.size(), filtered.nodes.size()) << "some nodes must host no prefill unit";

    const auto observation = observe_all(filtered, nodes);
    ASSERT_EQ(observation.nodes.size(), filtered.nodes.size());
    for (const auto& node : filtered.nodes) {
        const auto& seen = observation.nodes.at(node.name);
        EXPECT_EQ(seen.node, node.name);
        EXPECT_TRUE(seen.transport_error.empty()) << node.name;
        EXPECT_EQ(nodes.count("inspect " + node.name), prefill_nodes.count(node.name))
            << node.name << ": asked only where the filtered plan has units";
        for (const auto& unit : prefill->units) {
            if (unit.node == node.name) {
                EXPECT_NE(observation.find(node.name, unit.name), nullptr) << unit.name;
            }
        }
    }
}

}  // namespace
}  // namespace pdctl::engine

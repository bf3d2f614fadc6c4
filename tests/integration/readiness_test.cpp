// "Ready" is a fact about the stack (issue 12): on the simulated cluster, a KV path that cannot carry a
// request fails the router stage for each router implementation while every /health is 200; a
// worker that SMG never registered is named; a Mooncake master that is not serving yet holds its stage.
#include <gtest/gtest.h>

#include <algorithm>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// The local profile's router switched to `impl` (the program the simulator runs for it), with a
// short router gate so that a broken KV path fails in seconds.
void use_router(SimCluster& cluster, const std::string& impl) {
    auto text = read_text(cluster.config());
    const std::string program =
        impl == "smg" ? "program: [pdsim, smg, launch]" : "program: [pdsim, sglang_router.launch_router]";
    replace_all(text, "program: [pdsim, sglang_router.launch_router]\n    impl: minilb",
                program + "\n    impl: " + impl);
    replace_all(text, "health: {deadline: 30s, interval: 200ms}", "health: {deadline: 8s, interval: 200ms}");
    write_text(cluster.config(), text);
}

std::vector<json> events_named(const PdctlRun& run, const std::string& name, const std::string& role) {
    std::vector<json> found;
    for (const auto& event : run.events())
        if (event.value("event", "") == name && event.value("role", "") == role) found.push_back(event);
    return found;
}

std::size_t index_of(const PdctlRun& run, const std::string& name, const std::string& role) {
    const auto events = run.events();
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i].value("event", "") == name && events[i].value("role", "") == role) return i;
    return events.size();
}

struct ImplCase {
    std::string impl;
    int block;
};

void PrintTo(const ImplCase& param, std::ostream* out) {
    *out << param.impl;
}

class BrokenKvPath : public ::testing::TestWithParam<ImplCase> {};

// Decode cannot reach the prefill's bootstrap server (a firewall between P and D): every /health,
// MiniLB's included, answers 200, but no request gets through. The router stage must fail, naming
// the request's own error, and leave nothing running.
TEST_P(BrokenKvPath, FailsTheRouterStageWithTheRequestsError) {
    SimCluster cluster("kv" + GetParam().impl.substr(0, 3), GetParam().block);
    use_router(cluster, GetParam().impl);
    cluster.append("decode.env", "PDSIM_KV_FAULT=bootstrap\n");
    const auto start = cluster.run({"--json", "start"});
    EXPECT_EQ(start.exit_code, 5) << start.out << start.err;  // a gate that did not pass
    for (const std::string role : {"mooncake-master", "prefill", "decode"})
        EXPECT_EQ(events_named(start, "stage_ready", role).size(), 1u) << role << " was healthy";
    const auto failed = events_named(start, "stage_failed", "router");
    ASSERT_EQ(failed.size(), 1u) << start.out;
    const std::string reason = failed.front().value("reason", "");
    EXPECT_NE(reason.find("POST /generate: HTTP 500"), std::string::npos) << reason;
    EXPECT_NE(reason.find("Error fetching prefill parallel info from bootstrap " + cluster.address(1) +
                          ":8998: Connection refused"),
              std::string::npos)
        << reason;
    EXPECT_TRUE(cluster.live_pdsim_processes().empty()) << "a failed start stops what it started";
}

INSTANTIATE_TEST_SUITE_P(EachRouter, BrokenKvPath,
                         ::testing::Values(ImplCase{"minilb", 90}, ImplCase{"sglang-router", 91},
                                           ImplCase{"smg", 92}),
                         [](const auto& param_info) {
                             std::string name = param_info.param.impl;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(Readiness, AWorkerSmgNeverRegisteredIsNamed) {
    SimCluster cluster("smgmissing", 93);
    use_router(cluster, "smg");
    const std::string decode_url = "http://" + cluster.address(5) + ":30000";
    auto text = read_text(cluster.config());
    replace_all(text, "    impl: smg\n",
                "    impl: smg\n    env: {PDSIM_ROUTER_UNREGISTERED: \"" + decode_url + "\"}\n");
    write_text(cluster.config(), text);
    const auto start = cluster.run({"--json", "start"});
    EXPECT_EQ(start.exit_code, 5) << start.out << start.err;
    const auto failed = events_named(start, "stage_failed", "router");
    ASSERT_EQ(failed.size(), 1u) << start.out;
    EXPECT_NE(failed.front().value("reason", "").find("missing from /workers: " + decode_url),
              std::string::npos)
        << failed.front().dump();
}

TEST(Readiness, SmgPassesOnceEveryWorkerIsReadyAndARequestGetsThrough) {
    SimCluster cluster("smgok", 94);
    use_router(cluster, "smg");
    const auto start = cluster.run({"--json", "start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto status = cluster.run({"--json", "status"});
    ASSERT_EQ(status.exit_code, 0) << status.out;
    const auto parsed = json::parse(status.out);  // named: a range-for would not extend a temporary's life
    for (const auto& role : parsed["roles"]) {
        if (role["role"] != "router") continue;
        EXPECT_EQ(role["gate_answer"], "HTTP 200, 2 workers healthy, /generate answered") << role.dump();
    }
}

TEST(Readiness, AMasterThatIsNotServingYetHoldsItsStage) {
    SimCluster cluster("mcready", 95);
    auto text = read_text(cluster.config());
    // The master's JSON /health says service_ready false for its first 1.5 s after binding.
    replace_all(text, "    program: [pdsim, mooncake_master]\n",
                "    program: [pdsim, mooncake_master]\n    env: {PDSIM_MASTER_READY_MS: \"1500\"}\n");
    write_text(cluster.config(), text);
    const auto start = cluster.run({"--json", "start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto waiting = events_named(start, "gate_waiting", "mooncake-master");
    const bool held = std::any_of(waiting.begin(), waiting.end(), [](const json& event) {
        return event.value("answer", "") == "HTTP 200, service_ready: false (ha_state starting)";
    });
    EXPECT_TRUE(held) << start.out;
    EXPECT_LT(index_of(start, "stage_ready", "mooncake-master"), index_of(start, "stage_begin", "prefill"));
    const auto ready = events_named(start, "stage_ready", "mooncake-master");
    ASSERT_EQ(ready.size(), 1u);
    EXPECT_GE(ready.front().value("elapsed_ms", 0), 1500) << "ready before the master said service_ready";
}

}  // namespace
}  // namespace pdctl::testing

// Narrow gates on the simulated cluster: with `decode: depends_on: [{role: prefill, gate: bootstrap}]`
// decode loads while prefill loads (prefill rank 0's bootstrap server answers before its weights are
// in); with full gating it waits. How much sooner start ends is measured by bench/, not here.
#include <gtest/gtest.h>

#include <iostream>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// Fixed start-up of every sglang node: 4 phases of 300 ms plus 2 s of weights, about 3.2 s per group.
constexpr const char* kPhases = "PDSIM_PHASE_MS=300\nPDSIM_WEIGHTS_MS=2000\n";

// epoch_ms of the first event `event` for `role` ("" = any role), or -1.
long long first_at(const std::vector<json>& events, const std::string& event, const std::string& role = "") {
    for (const auto& e : events)
        if (e["event"] == event && (role.empty() || e.value("role", "") == role))
            return e["epoch_ms"].get<long long>();
    return -1;
}

int index_of(const std::vector<json>& events, const std::string& event, const std::string& role) {
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i]["event"] == event && events[i].value("role", "") == role) return static_cast<int>(i);
    return -1;
}

struct Timings {
    long long total_ms = 0;
    long long decode_begin = 0;
    long long prefill_ready = 0;
    std::vector<json> events;
};

Timings start_and_time(SimCluster& cluster) {
    cluster.append("prefill.env", kPhases);
    cluster.append("decode.env", kPhases);
    const auto start = cluster.run({"--json", "start"});
    EXPECT_EQ(start.exit_code, 0) << start.out << start.err;
    Timings timings;
    timings.events = start.events();
    timings.total_ms = first_at(timings.events, "run_end") - first_at(timings.events, "run_begin");
    timings.decode_begin = first_at(timings.events, "stage_begin", "decode");
    timings.prefill_ready = first_at(timings.events, "stage_ready", "prefill");
    EXPECT_GT(timings.decode_begin, 0);
    EXPECT_GT(timings.prefill_ready, 0);
    return timings;
}

void gate_decode_on_prefill_bootstrap(const SimCluster& cluster) {
    std::string yaml = read_text(cluster.config());
    const std::string anchor = "    profile: decode.env\n";
    ASSERT_NE(yaml.find(anchor), std::string::npos);
    replace_all(yaml, anchor, anchor + "    depends_on: [{role: prefill, gate: bootstrap}]\n");
    write_text(cluster.config(), yaml);
}

TEST(NarrowGates, PlanShowsTheBootstrapEdge) {
    SimCluster cluster("gates-plan", 75);
    gate_decode_on_prefill_bootstrap(cluster);
    const auto plan = cluster.run({"plan", "start"});
    ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
    EXPECT_NE(
        plan.out.find("decode ×4 (decode)  after prefill (bootstrap: GET 127.0.75.1:8998/health == 200)"),
        std::string::npos)
        << plan.out;
}

TEST(NarrowGates, BootstrapGateOverlapsDecodeWithPrefillAndStartsSooner) {
    Timings full;
    {
        SimCluster cluster("gates-full", 74);
        full = start_and_time(cluster);
        EXPECT_GE(full.decode_begin, full.prefill_ready) << "full gating: decode waits for prefill";
    }
    Timings narrow;
    {
        SimCluster cluster("gates-narrow", 75);
        gate_decode_on_prefill_bootstrap(cluster);
        narrow = start_and_time(cluster);
        EXPECT_LT(narrow.decode_begin, narrow.prefill_ready) << "decode must start while prefill loads";
        EXPECT_GT(first_at(narrow.events, "stage_ready", "decode"), 0);
        // The router's edges stay `ready`: it begins after both groups' gates passed (event order).
        const int router_begin = index_of(narrow.events, "stage_begin", "router");
        EXPECT_GT(router_begin, index_of(narrow.events, "stage_ready", "decode"));
        EXPECT_GT(router_begin, index_of(narrow.events, "stage_ready", "prefill"));

        // Both groups really came up: the cluster serves.
        const auto smoke = cluster.run({"smoke"});
        EXPECT_EQ(smoke.exit_code, 0) << smoke.out << smoke.err;
    }
    std::cout << "start wall time: full gating " << full.total_ms << " ms, bootstrap gate " << narrow.total_ms
              << " ms, saved " << full.total_ms - narrow.total_ms << " ms\n";
    // How much sooner is a speed goal, measured by bench/ ("3. start, narrow"): two runs' wall times
    // compared here would measure the machine's load as much as the gate (CI saw 0.7 s saved of ~3 s).
    // What the edge guarantees is within one run: prefill's bootstrap server answers before its 2 s
    // weights phase, so decode loads during most of it. The phases are wall-clock sleeps, so load
    // only lengthens prefill and the overlap; 1 s allows the bootstrap gate's poll and a slow start.
    EXPECT_GE(narrow.prefill_ready - narrow.decode_begin, 1000)
        << "decode began " << narrow.prefill_ready - narrow.decode_begin << " ms before prefill was ready";
}

}  // namespace
}  // namespace pdctl::testing

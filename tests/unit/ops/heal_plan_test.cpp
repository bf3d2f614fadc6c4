// What one `heal` pass decides from a status and the heals the journal remembers: the smallest set of
// restarts (a prefill with its decodes, once), rolling only where the router can keep serving, a group
// still loading left to finish, a crash loop left alone after max_tries, and the router's list put right.
#include "pdctl/ops/heal_plan.hpp"

#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"

namespace pdctl::ops {
namespace {

using Lines = std::vector<std::string>;
constexpr long long kNow = 1'800'000'000'000;

struct HealFixture {
    // The master, two prefill and two decode groups of one node each, and a router of `impl`.
    static plan::Plan plan_of(const std::string& impl) {
        const std::string yaml = R"(cluster: h
executor: local
defaults: {runtime: process, gpus_per_node: 8}
nodes:
  - {name: n1, address: 127.0.0.1}
  - {name: n2, address: 127.0.0.2}
  - {name: n3, address: 127.0.0.3}
  - {name: n4, address: 127.0.0.4}
  - {name: n5, address: 127.0.0.5}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill: {kind: sglang, mode: prefill, groups: [[n1], [n2]]}
  decode: {kind: sglang, mode: decode, groups: [[n3], [n4]]}
  router: {kind: router, impl: )" +
                                 impl + R"(, nodes: [n5]}
)";
        return plan::build_plan(
            config::load_cluster("/h/pdctl.yaml", config::MemoryFileSource({{"/h/pdctl.yaml", yaml}})));
    }

    // Every stage ready and every unit running.
    static engine::ClusterStatus healthy(const plan::Plan& plan) {
        engine::ClusterStatus status;
        status.cluster = plan.cluster;
        status.state = "running";
        for (const auto& stage : plan.stages) {
            engine::RoleStatus role;
            role.role = stage.role;
            role.ready = true;
            role.gate_answer = "HTTP 200";
            for (const auto& unit : stage.units) {
                engine::UnitStatus seen;
                seen.role = stage.role;
                seen.node = unit.node;
                seen.unit = unit.name;
                seen.rank = unit.rank;
                seen.state = "running";
                // As status says: SGLang ranks have a progress, the master and the router none.
                if (stage.kind == config::RoleKind::Sglang) {
                    seen.progress = "moving";
                    seen.phase = "serving";
                }
                role.units.push_back(seen);
            }
            status.roles.push_back(role);
        }
        return status;
    }

    static engine::RoleStatus& role(engine::ClusterStatus& status, const std::string& name) {
        for (auto& role : status.roles)
            if (role.role == name) return role;
        throw std::runtime_error("no role " + name);
    }

    static Lines described(const HealPlan& heal) {
        Lines lines;
        for (const auto& action : heal.actions) lines.push_back(describe(action));
        return lines;
    }
};

TEST(HealPlan, AHealthyClusterNeedsNothing) {
    const auto plan = HealFixture::plan_of("smg");
    EXPECT_TRUE(plan_heal(plan, HealFixture::healthy(plan), {}, {}, kNow).healthy());
}

TEST(HealPlan, ADeadDecodeRankRestartsItsGroupAloneThroughTheRouter) {
    const auto plan = HealFixture::plan_of("smg");
    auto status = HealFixture::healthy(plan);
    auto& decode2 = HealFixture::role(status, "decode-2");
    decode2.ready = false;
    decode2.units[0].state = "exited";
    decode2.units[0].exit_code = "137";
    // The router's gate fails too (a request can land on the dead group): it follows its workers.
    HealFixture::role(status, "router").ready = false;
    const auto heal = plan_heal(plan, status, {}, {}, kNow);
    EXPECT_EQ(HealFixture::described(heal),
              (Lines{"restart decode-2 (rolling, through router): rank 0 on n4 exited (code 137)"}));
    EXPECT_EQ(heal.actions[0].unit, "pd-h-decode-2-0");
}

TEST(HealPlan, ADeadPrefillTakesItsDecodesAlongOnceAndAStalledRankIsBrokenToo) {
    const auto plan = HealFixture::plan_of("smg");
    auto status = HealFixture::healthy(plan);
    HealFixture::role(status, "prefill-2").units[0].state = "absent";
    auto& decode = HealFixture::role(status, "decode");
    decode.ready = false;
    decode.units[0].progress = "stalled";
    decode.units[0].stall = "stalled while allocating KV cache: its log has been quiet for 2m";
    const auto heal = plan_heal(plan, status, {}, {}, kNow);
    EXPECT_EQ(HealFixture::described(heal),
              (Lines{"restart prefill-2 with decode, decode-2 (rolling, through router): rank 0 on n2 is not "
                     "running"}))
        << "the stalled decode restarts with the prefill, not a second time";
}

TEST(HealPlan, WithoutAWorkerApiOrAnotherReadyGroupTheRestartIsScoped) {
    const auto minilb = HealFixture::plan_of("minilb");
    auto status = HealFixture::healthy(minilb);
    HealFixture::role(status, "decode").units[0].state = "exited";
    auto heal = plan_heal(minilb, status, {}, {}, kNow);
    ASSERT_EQ(heal.actions.size(), 1u);
    EXPECT_FALSE(heal.actions[0].rolling);
    EXPECT_EQ(describe(heal.actions[0]), "restart decode (scoped restart): rank 0 on n3 exited");

    // SMG, but both decode groups dead: no decode would be left to serve while one is out.
    const auto smg = HealFixture::plan_of("smg");
    status = HealFixture::healthy(smg);
    for (const auto* name : {"decode", "decode-2"}) {
        HealFixture::role(status, name).ready = false;
        HealFixture::role(status, name).units[0].state = "exited";
    }
    heal = plan_heal(smg, status, {}, {}, kNow);
    ASSERT_EQ(heal.actions.size(), 2u);
    EXPECT_FALSE(heal.actions[0].rolling);
    EXPECT_FALSE(heal.actions[1].rolling);
}

TEST(HealPlan, AGroupStillLoadingIsLeftToFinishAndAFailingGateWithoutProgressIsBroken) {
    const auto plan = HealFixture::plan_of("smg");
    auto status = HealFixture::healthy(plan);
    auto& prefill = HealFixture::role(status, "prefill");
    prefill.ready = false;
    prefill.gate_answer = "HTTP 503";
    prefill.units[0].phase = "loading-weights";
    auto heal = plan_heal(plan, status, {}, {}, kNow);
    ASSERT_EQ(heal.actions.size(), 1u);
    EXPECT_EQ(heal.actions[0].kind, HealKind::kWait);
    EXPECT_EQ(describe(heal.actions[0]),
              "wait for prefill: rank 0 on n1 is still starting (loading-weights)");

    // A hung (SIGSTOPped) rank 0 of a group that served: its process runs, its health check times out,
    // and status still calls it moving (its log has not been quiet past stall_after yet).
    prefill.units[0].phase = "ready";
    prefill.gate_answer = "Read timed out";
    heal = plan_heal(plan, status, {}, {}, kNow);
    ASSERT_EQ(heal.actions.size(), 1u);
    EXPECT_EQ(
        describe(heal.actions[0]),
        "restart prefill with decode, decode-2 (rolling, through router): its gate fails (Read timed out) "
        "while every rank runs");
}

TEST(HealPlan, AnUnreachableNodeIsNeverHealedBlind) {
    const auto plan = HealFixture::plan_of("smg");
    auto status = HealFixture::healthy(plan);
    HealFixture::role(status, "decode-2").units[0].state = "unknown";
    const auto heal = plan_heal(plan, status, {}, {}, kNow);
    ASSERT_EQ(heal.actions.size(), 1u);
    EXPECT_EQ(heal.actions[0].kind, HealKind::kBlind);
    EXPECT_EQ(describe(heal.actions[0]),
              "cannot heal decode-2: n4 did not answer: what runs there is unknown");
}

TEST(HealPlan, APrefillWhoseDecodeSitsOnAnUnreachableNodeIsNotRestartedBlind) {
    const auto plan = HealFixture::plan_of("smg");
    auto status = HealFixture::healthy(plan);
    HealFixture::role(status, "prefill").units[0].state = "exited";
    HealFixture::role(status, "decode-2").units[0].state = "unknown";
    const auto heal = plan_heal(plan, status, {}, {}, kNow);
    ASSERT_EQ(heal.actions.size(), 2u) << HealFixture::described(heal).front();
    EXPECT_EQ(heal.count(HealKind::kRestart), 0);
    EXPECT_EQ(
        describe(heal.actions[0]),
        "cannot heal prefill: decode-2 goes with it, and n4 did not answer: what runs there is unknown");
}

TEST(HealPlan, AGroupHealedMaxTriesTimesWithinTheWindowIsLeftAloneWithItsLastFailure) {
    const auto plan = HealFixture::plan_of("minilb");
    auto status = HealFixture::healthy(plan);
    HealFixture::role(status, "decode").units[0].state = "absent";
    const HealPolicy policy{2, std::chrono::minutes(10)};
    // One heal 11 minutes ago (outside the window) and one a minute ago: one try counts.
    std::vector<HealAttempt> history = {{"decode", kNow - 11 * 60'000, "r1", "old", {}},
                                        {"decode-2", kNow - 60'000, "r2", "", {}},
                                        {"decode", kNow - 60'000, "r3", "rank 0 on n3 exited", {"crash"}}};
    auto heal = plan_heal(plan, status, history, policy, kNow);
    ASSERT_EQ(heal.actions.size(), 1u);
    EXPECT_EQ(heal.actions[0].kind, HealKind::kRestart);
    EXPECT_EQ(heal.actions[0].tries, 1);

    history.push_back(
        {"decode", kNow - 30'000, "r4", "rank 0 on n3 exited (code 1)", {"line 1", "crash at weights"}});
    heal = plan_heal(plan, status, history, policy, kNow);
    ASSERT_EQ(heal.actions.size(), 1u);
    EXPECT_EQ(heal.actions[0].kind, HealKind::kGiveUp);
    EXPECT_EQ(heal.count(HealKind::kGiveUp), 1);
    EXPECT_EQ(
        describe(heal.actions[0]),
        "leave decode alone: rank 0 on n3 is not running; healed 2 times within the window already, the "
        "last time: rank 0 on n3 exited (code 1)");
    EXPECT_EQ(heal.actions[0].last_log_tail, (Lines{"line 1", "crash at weights"}));
}

TEST(HealPlan, TheJournalsHealLinesAndTheirFailuresAreReadBack) {
    const std::string journal =
        R"({"run":"a","seq":0,"epoch_ms":100,"verb":"heal","event":"record_begin"})"
        "\n"
        R"({"run":"a","seq":1,"epoch_ms":101,"verb":"heal","event":"heal_action","stage":"decode","why":"x"})"
        "\n"
        R"({"run":"a","seq":2,"epoch_ms":150,"verb":"heal","event":"stage_failed","role":"decode","reason":"rank 0 crashed","log_tail":["a","b"]})"
        "\n"
        "not json\n"
        R"({"run":"b","seq":0,"epoch_ms":200,"verb":"restart","event":"stage_failed","reason":"not a heal"})"
        "\n"
        R"({"run":"c","seq":1,"epoch_ms":300,"verb":"heal","event":"heal_action","stage":"prefill-2"})"
        "\n";
    const auto attempts = heal_attempts(journal);
    ASSERT_EQ(attempts.size(), 2u);
    EXPECT_EQ(attempts[0].stage, "decode");
    EXPECT_EQ(attempts[0].epoch_ms, 101);
    EXPECT_EQ(attempts[0].failure, "rank 0 crashed");
    EXPECT_EQ(attempts[0].log_tail, (Lines{"a", "b"}));
    EXPECT_EQ(attempts[1].stage, "prefill-2");
    EXPECT_TRUE(attempts[1].failure.empty());
}

TEST(HealPlan, TheRoutersListIsPutRightAgainstTheConfig) {
    const auto plan = HealFixture::plan_of("smg");
    const auto* router = plan.find_stage("router");
    ASSERT_NE(router, nullptr);
    ASSERT_TRUE(router->router);
    std::vector<health::ListedWorker> listed;
    for (const auto& worker : router->router->workers)
        listed.push_back({"id-" + worker.stage, worker.url, worker.type, "ready", true});
    EXPECT_TRUE(plan_router_sync(*router, listed, {}).empty()) << "in line";

    listed.erase(listed.begin() + 1);                                              // a group missing
    listed[0].status = "failed";                                                   // one SMG gave up on
    listed.push_back({"id-x", "http://10.9.9.9:30000", "decode", "ready", true});  // one nobody configured
    const auto actions = plan_router_sync(*router, listed, {"decode-2"});
    Lines lines;
    for (const auto& action : actions) lines.push_back(to_string(action.kind) + " " + action.url);
    const auto& workers = router->router->workers;
    EXPECT_EQ(lines, (Lines{"router-remove " + workers[0].url, "router-add " + workers[0].url,
                            "router-add " + workers[1].url, "router-remove http://10.9.9.9:30000"}))
        << "decode-2 restarts in this pass and is left to its restart";
    EXPECT_EQ(actions[0].worker_id, "id-" + workers[0].stage);

    const auto minilb = HealFixture::plan_of("minilb");
    EXPECT_TRUE(plan_router_sync(*minilb.find_stage("router"), {}, {}).empty())
        << "MiniLB has no list to fix";
}

state::intent::Intent stopped_on_purpose(const std::vector<std::string>& stages, const std::string& words) {
    state::intent::Intent intent;
    state::intent::mark_stopped(intent, stages,
                                {{"alice@ops1", "2026-12-06T10:00:00Z", kNow - 60'000, "r1"},
                                 "pdctl stop" + words,
                                 "pdctl start" + words});
    return intent;
}

TEST(HealPlan, AGroupStoppedOnPurposeIsLeftStoppedWithOneLineNamingWhoAndHowToBringItBack) {
    const auto plan = HealFixture::plan_of("smg");
    auto status = HealFixture::healthy(plan);
    auto& decode2 = HealFixture::role(status, "decode-2");
    decode2.ready = false;
    decode2.units[0].state = "absent";
    const auto intent = stopped_on_purpose({"decode-2"}, " --group decode-2");
    const auto heal = plan_heal(plan, status, {}, {}, kNow, intent);
    EXPECT_EQ(
        HealFixture::described(heal),
        (Lines{"leave decode-2 stopped: stopped on purpose by alice@ops1 at 2026-12-06T10:00:00Z (pdctl "
               "stop --group decode-2); `pdctl start --group decode-2` brings it back"}));
    EXPECT_EQ(heal.count(HealKind::kRestart), 0);

    // A dead prefill is restarted, but never takes the decode stopped on purpose along.
    HealFixture::role(status, "prefill").units[0].state = "exited";
    const auto with_prefill = plan_heal(plan, status, {}, {}, kNow, intent);
    ASSERT_EQ(with_prefill.count(HealKind::kRestart), 1);
    for (const auto& action : with_prefill.actions) {
        if (action.kind == HealKind::kRestart) {
            EXPECT_EQ(action.along, (Lines{"decode"}));
        }
    }
}

TEST(HealPlan, AWholeStopLeavesEveryStageAloneAndTheRouterIsNotRestartedForAGroupStoppedOnPurpose) {
    const auto plan = HealFixture::plan_of("minilb");
    auto status = HealFixture::healthy(plan);
    std::vector<std::string> every;
    for (auto& role : status.roles) {
        every.push_back(role.role);
        role.ready = false;
        for (auto& unit : role.units) unit.state = "absent";
    }
    const auto whole = plan_heal(plan, status, {}, {}, kNow, stopped_on_purpose(every, ""));
    EXPECT_EQ(
        HealFixture::described(whole),
        (Lines{"leave cluster h stopped: stopped on purpose by alice@ops1 at 2026-12-06T10:00:00Z (pdctl "
               "stop); `pdctl start` brings it back"}))
        << "one line for one stop of everything, and nothing else";

    // MiniLB keeps sending to a decode stopped on purpose, so its gate fails: no restart of it helps.
    auto one_down = HealFixture::healthy(plan);
    HealFixture::role(one_down, "decode-2").units[0].state = "absent";
    HealFixture::role(one_down, "decode-2").ready = false;
    HealFixture::role(one_down, "router").ready = false;
    HealFixture::role(one_down, "router").gate_answer = "HTTP 503";
    const auto heal =
        plan_heal(plan, one_down, {}, {}, kNow, stopped_on_purpose({"decode-2"}, " --group decode-2"));
    EXPECT_EQ(heal.count(HealKind::kRestart), 0) << HealFixture::described(heal).size();
}

TEST(HealPlan, TheRouterNeverGetsAGroupStoppedOnPurposeBackAndLosesOneItStillLists) {
    const auto plan = HealFixture::plan_of("smg");
    const auto* router = plan.find_stage("router");
    std::vector<health::ListedWorker> listed;
    for (const auto& worker : router->router->workers)
        if (worker.stage != "decode")
            listed.push_back({"id-" + worker.stage, worker.url, worker.type, "ready", true});
    const auto intent = stopped_on_purpose({"decode", "decode-2"}, " --role decode");
    const auto actions = plan_router_sync(*router, listed, {}, intent);
    ASSERT_EQ(actions.size(), 1u) << "decode is not added back; decode-2, still listed, is taken out";
    EXPECT_EQ(actions[0].kind, HealKind::kRouterRemove);
    EXPECT_EQ(actions[0].stage, "decode-2");
}

TEST(HealPlan, AHealThatUndidADeliberateStopIsNotCountedAsACrash) {
    // decode-2 stopped on purpose at 100, "healed" at 200 by an older pdctl, started again at 300 by an
    // operator, then a real heal at 400: only that one counts.
    const std::string journal =
        R"({"run":"s","seq":1,"epoch_ms":100,"verb":"stop","event":"intent","change":"stopped","stages":["decode-2"]})"
        "\n"
        R"({"run":"h","seq":1,"epoch_ms":200,"verb":"heal","event":"heal_action","stage":"decode-2"})"
        "\n"
        R"({"run":"t","seq":1,"epoch_ms":300,"verb":"start","event":"intent","change":"started","stages":["decode-2"]})"
        "\n"
        R"({"run":"i","seq":1,"epoch_ms":400,"verb":"heal","event":"heal_action","stage":"decode-2"})"
        "\n";
    const auto attempts = heal_attempts(journal);
    ASSERT_EQ(attempts.size(), 1u);
    EXPECT_EQ(attempts[0].run, "i");
}

}  // namespace
}  // namespace pdctl::ops

// pdsim as `sglang.launch_server`: start-up phases, which ports open when, multi-node groups,
// PD request checks, and injected faults.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim_fixtures.hpp"
#include "sim_http.hpp"
#include "sim_process.hpp"

namespace pdsim_test {
namespace {

using ::testing::HasSubstr;

TEST(SimServer, TwoRankPrefillOpensApiPortOnlyAfterRankOneJoins) {
    const std::string rank0_host = "127.0.50.10";
    const std::string rank1_host = "127.0.50.11";
    const int port = 47000;
    const int bootstrap_port = 47001;
    auto group = [&](const std::string& host, const std::string& rank) {
        return sglang_args({"--disaggregation-mode", "prefill", "--host", host, "--port",
                            std::to_string(port), "--nnodes", "2", "--node-rank", rank, "--tp-size", "16",
                            "--dist-init-addr", rank0_host + ":47002", "--disaggregation-bootstrap-port",
                            std::to_string(bootstrap_port)});
    };
    SimProcess rank0("rank0", group(rank0_host, "0"), fast_env());

    // The bootstrap server answers early, while the API port is still closed.
    ASSERT_TRUE(
        wait_until([&] { return status_of(rank0_host, bootstrap_port, "/health") == 200; }, kStartDeadline));
    EXPECT_EQ(http_get(rank0_host, bootstrap_port, "/health")->body, "OK");
    ASSERT_TRUE(rank0.wait_for_log("Init torch distributed begin.", kStartDeadline));
    // Without rank 1 the group cannot finish distributed init: the port stays closed.
    EXPECT_FALSE(wait_until([&] { return port_open(rank0_host, port); }, 600ms));
    EXPECT_FALSE(rank0.log_contains("Init torch distributed ends"));
    EXPECT_TRUE(rank0.running());

    SimProcess rank1("rank1", group(rank1_host, "1"), fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(rank0_host, port, "/health") == 200; }, kStartDeadline));
    EXPECT_TRUE(wait_until([&] { return status_of(rank1_host, port, "/health") == 200; }, kStartDeadline));
    EXPECT_EQ(status_of(rank1_host, port, "/health_generate"), 200);
    EXPECT_EQ(status_of(rank1_host, port, "/ping"), 200);

    // Rank 1 is a dummy health server only; its scheduler log lines carry its global TP rank.
    EXPECT_TRUE(rank1.wait_for_log(
        "Dummy health check server started in background thread at 127.0.50.11:47000", kLogDeadline));
    EXPECT_TRUE(rank1.wait_for_log("TP8] Load weight begin. avail mem=78.21 GB", kLogDeadline));
    EXPECT_FALSE(rank1.log_contains("Uvicorn running"));

    // Rank 0's lines come in the real order.
    const std::string log = rank0.log();
    std::size_t last = 0;
    for (const char* line :
         {"server_args=ServerArgs(", "TP0] Init torch distributed begin.",
          "TP0] Init torch distributed ends. mem usage=0.00 GB", "TP0] Load weight begin.",
          "TP0] Load weight end. type=DeepseekV3ForCausalLM", "TP0] KV Cache is allocated.",
          "TP0] Memory pool end.", "Cuda graph is disabled for prefill server", "max_total_num_tokens=",
          "Uvicorn running on http://127.0.50.10:47000", "Start of pd disaggregation warmup ...",
          "End of prefill disaggregation mode warmup with status 200",
          "The server is fired up and ready to roll!"}) {
        std::size_t at = log.find(line, last);
        ASSERT_NE(at, std::string::npos) << "missing or out of order: " << line;
        last = at;
    }
    EXPECT_FALSE(rank0.log_contains("Capture cuda graph begin"));

    // Both ranks registered with the bootstrap server; decode's lookup sees the group's shape.
    auto info =
        http_get(rank0_host, bootstrap_port, "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->status, 200);
    EXPECT_EQ(info->json()["tp_size"], 16);
    EXPECT_EQ(info->json()["registered_ranks"], 16);
    auto rank8 =
        http_get(rank0_host, bootstrap_port, "/route?engine_rank=8&target_dp_group=0&target_pp_rank=0");
    ASSERT_TRUE(rank8);
    EXPECT_EQ(rank8->json()["rank_ip"], rank1_host);
}

TEST(SimServer, HealthIs503DuringWarmupThen200) {
    const std::string host = "127.0.50.12";
    const int port = 47010;
    SimProcess server("prefill",
                      sglang_args({"--disaggregation-mode", "prefill", "--host", host, "--port",
                                   std::to_string(port), "--disaggregation-bootstrap-port", "47011"}),
                      fast_env({{"PDSIM_WARMUP_MS", "1500"}}));

    ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/get_model_info") == 200; }, kStartDeadline));
    EXPECT_EQ(status_of(host, port, "/health"), 503);
    EXPECT_EQ(status_of(host, port, "/health_generate"), 503);
    EXPECT_EQ(status_of(host, port, "/v1/models"), 200);
    EXPECT_EQ(status_of(host, port, "/get_server_info"), 200);
    EXPECT_TRUE(server.wait_for_log("Start of pd disaggregation warmup ...", kLogDeadline));
    EXPECT_FALSE(server.log_contains("fired up"));

    auto model = http_get(host, port, "/get_model_info");
    EXPECT_EQ(model->json()["model_path"], "deepseek-ai/DeepSeek-V3-0324");
    EXPECT_EQ(model->json()["is_generation"], true);

    ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/health") == 200; }, kStartDeadline));
    EXPECT_EQ(status_of(host, port, "/health_generate"), 200);
    EXPECT_TRUE(server.wait_for_log("The server is fired up and ready to roll!", kLogDeadline));
}

TEST(SimServer, DecodeRejectsGenerateWithoutBootstrapFields) {
    const std::string host = "127.0.50.13";
    const int port = 47020;
    SimProcess decode(
        "decode",
        sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", std::to_string(port)}),
        fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/health") == 200; }, kStartDeadline));
    EXPECT_TRUE(decode.wait_for_log("KV cache is forced as chunk cache for decode server", kLogDeadline));
    EXPECT_TRUE(decode.wait_for_log("Capture cuda graph end. Time elapsed: 1.23 s", kLogDeadline));

    auto rejected =
        http_post(host, port, "/generate", {{"text", "Hello"}, {"sampling_params", {{"max_new_tokens", 4}}}});
    ASSERT_TRUE(rejected);
    EXPECT_EQ(rejected->status, 400);
    EXPECT_THAT(rejected->json()["error"]["message"].get<std::string>(), HasSubstr("bootstrap_host"));

    // The fake bootstrap host needs no prefill peer, as in SGLang's own health checks.
    auto fake = http_post(host, port, "/generate",
                          {{"input_ids", {1, 2, 3}},
                           {"bootstrap_host", "2.2.2.2"},
                           {"bootstrap_room", 0},
                           {"sampling_params", {{"max_new_tokens", 5}}}});
    ASSERT_TRUE(fake);
    EXPECT_EQ(fake->status, 200);
    EXPECT_EQ(fake->json()["meta_info"]["completion_tokens"], 5);
    EXPECT_FALSE(fake->json()["text"].get<std::string>().empty());
}

TEST(SimServer, CrashAtWeightsOnRankOneTakesTheGroupDown) {
    const std::string rank0_host = "127.0.50.14";
    const std::string rank1_host = "127.0.50.15";
    auto group = [&](const std::string& host, const std::string& rank) {
        return sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47030", "--nnodes",
                            "2", "--node-rank", rank, "--tp", "2", "--dist-init-addr",
                            rank0_host + ":47031"});
    };
    const EnvList env = fast_env({{"PDSIM_CRASH_AT", "weights"}, {"PDSIM_CRASH_RANK", "1"}});
    SimProcess rank0("rank0", group(rank0_host, "0"), env);
    SimProcess rank1("rank1", group(rank1_host, "1"), env);

    EXPECT_EQ(rank1.wait_exit(kStartDeadline), 1);
    const std::size_t begin = rank1.log_find("TP1] Load weight begin.");
    const std::size_t crash =
        rank1.log_find("TP1] Scheduler hit an exception: pdsim injected crash at weights");
    ASSERT_NE(begin, std::string::npos);
    ASSERT_NE(crash, std::string::npos);
    EXPECT_LT(begin, crash);
    EXPECT_FALSE(rank1.log_contains("Load weight end"));

    EXPECT_EQ(rank0.wait_exit(kStartDeadline), 1);
    EXPECT_TRUE(rank0.wait_for_log("Rank 1 scheduler is dead", kLogDeadline));
    EXPECT_FALSE(port_open(rank0_host, 47030));
}

TEST(SimServer, RankOneExitsWhenRankZeroStops) {
    const std::string rank0_host = "127.0.50.16";
    const std::string rank1_host = "127.0.50.17";
    auto group = [&](const std::string& host, const std::string& rank) {
        return sglang_args({"--host", host, "--port", "47040", "--nnodes", "2", "--node-rank", rank, "--tp",
                            "2", "--dist-init-addr", rank0_host + ":47041"});
    };
    SimProcess rank0("rank0", group(rank0_host, "0"), fast_env());
    SimProcess rank1("rank1", group(rank1_host, "1"), fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(rank0_host, 47040, "/health") == 200; }, kStartDeadline));
    ASSERT_TRUE(wait_until([&] { return status_of(rank1_host, 47040, "/health") == 200; }, kStartDeadline));

    rank0.signal(SIGTERM);
    EXPECT_EQ(rank0.wait_exit(1s), 0);
    EXPECT_EQ(rank1.wait_exit(kStartDeadline), 1);
    EXPECT_TRUE(rank1.wait_for_log("Scheduler hit an exception", kLogDeadline));
}

// A TP group meets in collectives (the memory all-reduce that sizes the KV cache, every forward pass),
// so a member stuck loading its weights holds rank 0 too: rank 0 finishes its own weights, then waits
// there, and its API port never opens.
TEST(SimServer, HangAtWeightsOnRankOneHoldsRankZeroBeforeTheKvCache) {
    const std::string rank0_host = "127.0.50.42";
    const std::string rank1_host = "127.0.50.43";
    auto group = [&](const std::string& host, const std::string& rank) {
        return sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47220", "--nnodes",
                            "2", "--node-rank", rank, "--tp", "2", "--dist-init-addr",
                            rank0_host + ":47221"});
    };
    const EnvList env = fast_env({{"PDSIM_HANG_AT", "weights"}, {"PDSIM_HANG_RANK", "1"}});
    SimProcess rank0("rank0", group(rank0_host, "0"), env);
    SimProcess rank1("rank1", group(rank1_host, "1"), env);

    ASSERT_TRUE(rank1.wait_for_log("TP1] Load weight begin.", kStartDeadline));
    ASSERT_TRUE(rank0.wait_for_log("TP0] Load weight end.", kStartDeadline));
    EXPECT_FALSE(wait_until([&] { return port_open(rank0_host, 47220); }, 600ms));
    EXPECT_FALSE(rank0.log_contains("KV Cache is allocated"));
    EXPECT_TRUE(rank0.running());

    rank0.signal(SIGTERM);
    EXPECT_EQ(rank0.wait_exit(1s), 0);
    EXPECT_EQ(rank1.wait_exit(kStartDeadline), 1) << "rank 1 notices that rank 0 is gone";
}

TEST(SimServer, HangAtKvNeverOpensThePortAndStillStopsOnSigterm) {
    const std::string host = "127.0.50.18";
    SimProcess server("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47050"}),
                      fast_env({{"PDSIM_HANG_AT", "kv"}}));
    ASSERT_TRUE(
        server.wait_for_log("KV Cache is allocated. #tokens: 1000000, KV size: 12.00 GB", kStartDeadline));
    EXPECT_FALSE(wait_until([&] { return port_open(host, 47050); }, 400ms));
    EXPECT_FALSE(server.log_contains("Memory pool end"));

    server.signal(SIGTERM);
    EXPECT_EQ(server.wait_exit(1s), 0);
}

// --gated-launch-port (upstream python/sglang/srt/distributed/gated_launch.py): the group joins, then
// every rank waits before its weights until rank 0's control server is told to open the gate.
TEST(SimServer, GatedLaunchWaitsAfterJoiningUntilTheGateIsOpened) {
    const std::string rank0_host = "127.0.50.60";
    const std::string rank1_host = "127.0.50.61";
    const int port = 47340;
    const int gate_port = 47342;
    auto group = [&](const std::string& host, const std::string& rank) {
        return sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", std::to_string(port),
                            "--nnodes", "2", "--node-rank", rank, "--tp-size", "2", "--dist-init-addr",
                            rank0_host + ":47341", "--gated-launch-port", std::to_string(gate_port)});
    };
    SimProcess rank0("rank0", group(rank0_host, "0"), fast_env());
    SimProcess rank1("rank1", group(rank1_host, "1"), fast_env());

    ASSERT_TRUE(
        wait_until([&] { return status_of(rank0_host, gate_port, "/health") == 200; }, kStartDeadline));
    EXPECT_EQ(http_get(rank0_host, gate_port, "/health")->body, "OK");
    ASSERT_TRUE(
        rank0.wait_for_log("TP0] Gated launch control server started on 127.0.50.60:47342", kLogDeadline));
    ASSERT_TRUE(rank0.wait_for_log("TP0] Gated launch waiting for activation. rank=0", kLogDeadline));
    ASSERT_TRUE(rank1.wait_for_log("TP1] Gated launch waiting for activation. rank=1", kLogDeadline));
    // Only rank 0 serves the gate; nothing of the model is loaded while it is shut.
    EXPECT_FALSE(port_open(rank1_host, gate_port));
    EXPECT_FALSE(wait_until([&] { return rank0.log_contains("Load weight begin"); }, 600ms));
    EXPECT_FALSE(rank1.log_contains("Load weight begin"));
    EXPECT_FALSE(port_open(rank0_host, port));

    const auto opened = http_post(rank0_host, gate_port, "/gate/activate", nlohmann::json::object());
    ASSERT_TRUE(opened);
    EXPECT_EQ(opened->status, 200);
    ASSERT_TRUE(wait_until([&] { return status_of(rank0_host, port, "/health") == 200; }, kStartDeadline));
    for (const SimProcess* rank : {&rank0, &rank1}) {
        const std::string log = rank->log();
        std::size_t last = 0;
        for (const char* line : {"Gated launch waiting for activation.", "Gated launch activated. elapsed=",
                                 "Init torch distributed ends.", "Load weight begin."}) {
            const std::size_t at = log.find(line, last);
            ASSERT_NE(at, std::string::npos) << "missing or out of order: " << line;
            last = at;
        }
    }
}

// A gate port already taken: logged as uvicorn logs it, and the group waits on (upstream's control
// server runs in a daemon thread whose failure ends only that thread).
TEST(SimServer, GatedLaunchWithItsPortTakenNeverOpens) {
    const std::string host = "127.0.50.62";
    SimProcess holder("holder", sglang_args({"--host", host, "--port", "47343"}), fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47343, "/health") == 200; }, kStartDeadline));
    SimProcess gated("gated",
                     sglang_args({"--host", host, "--port", "47344", "--gated-launch-port", "47343"}),
                     fast_env());
    ASSERT_TRUE(
        gated.wait_for_log("error while attempting to bind on address ('127.0.50.62', 47343)", kLogDeadline));
    ASSERT_TRUE(gated.wait_for_log("Gated launch waiting for activation. rank=0", kLogDeadline));
    EXPECT_FALSE(wait_until([&] { return gated.log_contains("Load weight begin"); }, 600ms));
    EXPECT_TRUE(gated.running());
}

TEST(SimServer, ParsesTheRealProgramsFlags) {
    const std::string host = "127.0.50.19";
    // Aliases (--tp, --dp), the --flag=value form, unknown flags with and without values, and
    // store_true flags that must not swallow the next token.
    SimProcess server(
        "plain",
        sglang_args({"--host", host, "--port=47060", "--tp", "8", "--dp", "2", "--enable-dp-attention",
                     "--moe-a2a-backend", "deepep", "--some-future-switch", "--cuda-graph-max-bs", "64",
                     "--skip-server-warmup", "--served-model-name", "kimi", "--mem-fraction-static", "0.8"}),
        fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47060, "/health") == 200; }, kStartDeadline));
    EXPECT_FALSE(server.log_contains("Start of pd disaggregation warmup"));

    auto info = http_get(host, 47060, "/get_server_info");
    ASSERT_TRUE(info);
    nlohmann::json args = info->json();
    EXPECT_EQ(args["tp_size"], 8);
    EXPECT_EQ(args["dp_size"], 2);
    EXPECT_EQ(args["enable_dp_attention"], true);
    EXPECT_EQ(args["served_model_name"], "kimi");
    EXPECT_EQ(args["disaggregation_mode"], "null");
    EXPECT_DOUBLE_EQ(args["mem_fraction_static"].get<double>(), 0.8);
    EXPECT_EQ(http_get(host, 47060, "/v1/models")->json()["data"][0]["id"], "kimi");

    // Non-PD mode serves plain generate requests, deterministically.
    nlohmann::json request = {{"text", "The capital of France is"},
                              {"sampling_params", {{"max_new_tokens", 6}}}};
    auto first = http_post(host, 47060, "/generate", request);
    auto second = http_post(host, 47060, "/generate", request);
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first->status, 200);
    EXPECT_EQ(first->json()["text"], second->json()["text"]);
}

TEST(SimServer, CommandLineMistakesExitWithStatusTwo) {
    SimProcess unknown("unknown-program", {"-m", "sglang.serve"});
    EXPECT_EQ(unknown.wait_exit(5s), 2);
    EXPECT_TRUE(unknown.wait_for_log("usage: pdsim", kLogDeadline));

    SimProcess missing("missing-model",
                       {"-m", "sglang.launch_server", "--host", "127.0.50.9", "--port", "47070"});
    EXPECT_EQ(missing.wait_exit(5s), 2);
    EXPECT_TRUE(missing.wait_for_log("--model-path", kLogDeadline));

    SimProcess bad_mode("bad-mode", sglang_args({"--host", "127.0.50.9", "--disaggregation-mode", "both"}));
    EXPECT_EQ(bad_mode.wait_exit(5s), 2);
    EXPECT_TRUE(bad_mode.wait_for_log("invalid choice: 'both'", kLogDeadline));

    SimProcess bad_knob("bad-knob", sglang_args({"--host", "127.0.50.9", "--port", "47071"}),
                        {{"PDSIM_CRASH_AT", "lunch"}});
    EXPECT_EQ(bad_knob.wait_exit(5s), 2);
}

}  // namespace
}  // namespace pdsim_test

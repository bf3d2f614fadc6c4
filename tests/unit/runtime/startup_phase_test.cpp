// The log-line table on real lines: SGLang v0.5.4 and HEAD wording,
// Mooncake transfer engine and master (glog), both routers, and what pdsim writes (captured from
// build/pdsim runs, verbatim).
#include "pdctl/runtime/startup_phase.hpp"

#include <gtest/gtest.h>

namespace pdctl::runtime {
namespace {

using Lines = std::vector<std::string>;
using config::RoleKind;

LogTime at(int y, int mo, int d, int h, int mi, int s) {
    using namespace std::chrono;
    return sys_days{year{y} / mo / d} + hours{h} + minutes{mi} + seconds{s};
}

// Feeds the log one line more at a time and records the phase after each line.
std::vector<Phase> phases_line_by_line(const Lines& log, RoleKind kind = RoleKind::Sglang) {
    std::vector<Phase> phases;
    for (std::size_t n = 1; n <= log.size(); ++n)
        phases.push_back(classify(Lines(log.begin(), log.begin() + static_cast<long>(n)), kind).phase);
    return phases;
}

// v0.5.4 decode rank 0 (CUDA graphs on), PD with Mooncake (one line per phase shown; the real log
// repeats the scheduler lines once per local TP rank).
const Lines kV054DecodeRank0 = {
    "[2025-03-12 08:52:39] server_args=ServerArgs(model_path='/data/models/Kimi-K3', "
    "tokenizer_path='/data/models/Kimi-K3', host='0.0.0.0', port=30000, disaggregation_mode='decode')",
    "[2025-03-12 08:52:41] KV cache is forced as chunk cache for decode server",
    "[2025-03-12 08:52:44 DP0 TP0] Init torch distributed begin.",
    "I0312 08:52:45.101934  9411 transfer_engine_impl.cpp:378] Transfer Engine RPC using P2P handshake, "
    "listening on 174.1.60.5:15123",
    "I0312 08:52:45.102011  9411 transfer_engine_impl.cpp:402] Auto-discovering topology...",
    "I0312 08:52:45.310770  9411 transfer_engine_impl.cpp:417] Topology discovery complete. Found 8 HCAs.",
    "I0312 08:52:45.311902  9411 rdma_context.cpp:126] RDMA device: mlx5_0, LID: 0, GID: (GID_Index 3) "
    "00:00:00:00:00:00:00:00:00:00:ff:ff:ae:01:3c:05",
    "[2025-03-12 08:52:50 DP0 TP0] Init torch distributed ends. mem usage=1.03 GB",
    "[2025-03-12 08:52:50 DP0 TP0] Load weight begin. avail mem=78.21 GB",
    "[2025-03-12 08:57:00 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, "
    "avail mem=20.10 GB, mem usage=58.11 GB.",
    "[2025-03-12 08:57:05 DP0 TP0] KV Cache is allocated. #tokens: 1048576, KV size: 12.00 GB",
    "[2025-03-12 08:57:12 DP0 TP0] Memory pool end. avail mem=8.00 GB",
    "[2025-03-12 08:57:12 DP0 TP0] Capture cuda graph begin. This can take up to several minutes. "
    "avail mem=7.98 GB",
    "[2025-03-12 08:59:19 DP0 TP0] Capture cuda graph end. Time elapsed: 127.03 s. mem usage=1.20 GB. "
    "avail mem=6.78 GB.",
    "[2025-03-12 08:59:20 DP0 TP0] max_total_num_tokens=1048576, chunked_prefill_size=8192, "
    "max_prefill_tokens=16384, max_running_requests=4096, context_len=131072",
    "[2025-03-12 08:59:22] INFO:     Started server process [9377]",
    "[2025-03-12 08:59:22] INFO:     Waiting for application startup.",
    "[2025-03-12 08:59:22] INFO:     Application startup complete.",
    "[2025-03-12 08:59:22] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
    "[2025-03-12 08:59:23] Start of pd disaggregation warmup ...",
    "[2025-03-12 08:59:25] End of prefill disaggregation mode warmup with status 200, resp: "
    "[{'text': '', 'meta_info': {'id': '4f1c', 'finish_reason': {'type': 'length', 'length': 0}}}]",
    "[2025-03-12 08:59:25] The server is fired up and ready to roll!",
};

TEST(Phases, V054DecodeRankZeroWalksEveryPhaseInOrder) {
    using P = Phase;
    const std::vector<Phase> expected = {
        P::kInitialising, P::kInitialising, P::kInitialising, P::kInitialising,   P::kInitialising,
        P::kInitialising, P::kInitialising, P::kInitialising, P::kLoadingWeights, P::kKvCache,
        P::kKvCache,      P::kKvCache,      P::kCudaGraphs,   P::kCudaGraphs,     P::kCudaGraphs,
        P::kCudaGraphs,   P::kCudaGraphs,   P::kCudaGraphs,   P::kHttpUp,         P::kWarmup,
        P::kWarmup,       P::kReady,
    };
    EXPECT_EQ(phases_line_by_line(kV054DecodeRank0), expected);
}

TEST(Phases, SinceIsTheLineThatEnteredThePhaseAndNewestTheLastTime) {
    // Up to "KV Cache is allocated": the KV phase began with "Load weight end" at 08:57:00.
    const Lines tail(kV054DecodeRank0.begin(), kV054DecodeRank0.begin() + 11);
    const auto result = classify(tail);
    EXPECT_EQ(result.phase, Phase::kKvCache);
    ASSERT_TRUE(result.since && result.newest);
    EXPECT_EQ(*result.since, at(2025, 3, 12, 8, 57, 0));
    EXPECT_EQ(*result.newest, at(2025, 3, 12, 8, 57, 5));
    EXPECT_NE(result.phase_line.find("Load weight end"), std::string::npos);
    EXPECT_NE(result.last_line.find("KV Cache is allocated"), std::string::npos);
    EXPECT_TRUE(result.warnings.empty()) << "8 HCAs is not a TCP fallback";
}

TEST(Phases, V054NonZeroRankEndsJoined) {
    const Lines log = {
        "[2025-03-12 08:52:44 DP8 TP8] Init torch distributed begin.",
        "[2025-03-12 08:52:50 DP8 TP8] Load weight begin. avail mem=78.21 GB",
        "[2025-03-12 08:59:20 DP8 TP8] max_total_num_tokens=1048576, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, max_running_requests=4096, context_len=131072",
        "[2025-03-12 08:59:21] Dummy health check server scheduled on existing loop at 0.0.0.0:30000",
    };
    EXPECT_EQ(phases_line_by_line(log), (std::vector<Phase>{Phase::kInitialising, Phase::kLoadingWeights,
                                                            Phase::kLoadingWeights, Phase::kJoined}));
}

TEST(Phases, HeadWording) {
    const std::vector<std::pair<std::string, Phase>> cases = {
        {"[2026-02-10 10:00:05 TP0] Init torch distributed ends. elapsed=4.93 s", Phase::kInitialising},
        {"[2026-02-10 10:06:40 TP0] Capture target decode CUDA graph begin. This can take up to several "
         "minutes. avail mem=9.10 GB",
         Phase::kCudaGraphs},
        {"[2026-02-10 10:06:40 TP0] Capture target prefill CUDA graph begin.", Phase::kCudaGraphs},
        {"[2026-02-10 10:08:02 TP0] Capture target decode CUDA graph end. elapsed=82.11 s. mem usage=1.31 GB",
         Phase::kCudaGraphs},
        {"[2026-02-10 10:08:05] Dummy health check server started in background thread at 0.0.0.0:30000",
         Phase::kJoined},
        {"[2026-02-10 10:08:07] Disaggregation warmup requests completed for all 4 DP ranks", Phase::kWarmup},
        {"[2026-02-10 10:08:07] End of disaggregation warmup", Phase::kWarmup},
        {"[2026-02-10 10:08:07] The server is fired up and ready to roll!", Phase::kReady},
    };
    for (const auto& [line, phase] : cases) EXPECT_EQ(classify({line}).phase, phase) << line;
}

TEST(Phases, EveryKnownFailureWinsOverWhatCameBeforeAndAfter) {
    const Lines failures = {
        "[2025-03-12 08:53:10 DP16 TP16] Scheduler hit an exception: Traceback (most recent call last):",
        "[2025-03-12 08:59:40] Initialization failed. warmup error: Traceback (most recent call last):",
        "[2025-03-12 08:55:02 DP0 TP0] Rank 3 scheduler is dead. Please check if there are relevant logs.",
        "[2025-03-12 08:53:09 DP0 TP0] Mooncake memory registration failed for buffer 0x7f3a40000000",
        "[2025-03-12 08:59:40] Prefill disaggregation mode warm Up Failed",
        "[2026-02-10 10:08:07] Disaggregation warmup failed",
        "[2025-03-12 08:59:22] ERROR:    [Errno 98] error while attempting to bind on address "
        "('0.0.0.0', 30000): address already in use",
        "F0312 08:52:40.000120  4242 master.cpp:88] Check failed: master service start",
    };
    for (const auto& failure : failures) {
        const Lines log = {
            "[2025-03-12 08:52:50 DP0 TP0] Load weight begin. avail mem=78.21 GB", failure,
            "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2521",
            "[2025-03-12 08:59:22] INFO:     Uvicorn running on http://0.0.0.0:30000"};
        const auto result = classify(log);
        EXPECT_EQ(result.phase, Phase::kFailed) << failure;
        EXPECT_EQ(result.phase_line, failure);
    }
}

TEST(Phases, TcpFallbackIsAWarningNotAPhase) {
    const Lines zero = {
        "I0312 08:52:45.102011  9411 transfer_engine_impl.cpp:402] Auto-discovering topology...",
        "I0312 08:52:45.310770  9411 transfer_engine_impl.cpp:417] Topology discovery complete. Found 0 "
        "HCAs.",
    };
    const auto result = classify(zero);
    EXPECT_EQ(result.phase, Phase::kInitialising);
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("falls back to TCP"), std::string::npos);

    EXPECT_TRUE(classify({"I0312 08:52:45.3 1 x.cpp:1] Topology discovery complete. Found 10 HCAs."})
                    .warnings.empty());
    const auto forced =
        classify({"I0312 08:52:45.101934  9411 transfer_engine_impl.cpp:391] MC_FORCE_TCP is set, using TCP "
                  "transport only",
                  "I0312 08:52:45.101934  9411 transfer_engine_impl.cpp:391] MC_FORCE_TCP is set, using TCP "
                  "transport only"});
    EXPECT_EQ(forced.warnings.size(), 1u) << "each warning once";
}

TEST(Phases, LateTransferEngineLinesNeverTakeAUnitBack) {
    // Real SGLang builds the KV manager (and with it the transfer engine) after the weights.
    const Lines log = {
        "[2025-03-12 08:52:50 DP0 TP0] Load weight begin. avail mem=78.21 GB",
        "[2025-03-12 08:57:00 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM, avail mem=20.10 GB",
        "I0312 08:57:01.101934  9411 transfer_engine_impl.cpp:378] Transfer Engine RPC using P2P handshake, "
        "listening on 174.1.60.1:15123",
    };
    const auto result = classify(log);
    EXPECT_EQ(result.phase, Phase::kKvCache);
    EXPECT_EQ(*result.since, at(2025, 3, 12, 8, 57, 0));
    EXPECT_EQ(*result.newest, at(2025, 3, 12, 8, 57, 1)) << "glog year taken from the SGLang lines";
}

TEST(Phases, MooncakeMaster) {
    const Lines log = {
        "I0312 08:52:39.123456  4242 master.cpp:98] Master service started on port 50051, max_threads=16, "
        "enable_metric_reporting=1, metrics_port=9003",
    };
    const auto result = classify(log, RoleKind::MooncakeMaster);
    EXPECT_EQ(result.phase, Phase::kReady);
    ASSERT_TRUE(result.since);
    const auto date = std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(*result.since)};
    EXPECT_EQ(date.month(), std::chrono::March);
    EXPECT_EQ(date.day(), std::chrono::day{12});
}

TEST(Phases, RoutersUvicornMeansReadyOnlyForTheRouter) {
    const std::string uvicorn =
        "[2025-03-12 08:52:40] INFO:     Uvicorn running on http://0.0.0.0:31000 "
        "(Press CTRL+C to quit)";
    EXPECT_EQ(classify({uvicorn}, RoleKind::Router).phase, Phase::kReady);
    EXPECT_EQ(classify({uvicorn}, RoleKind::Sglang).phase, Phase::kHttpUp);

    const Lines rust = {
        "2025-03-12T08:52:40.120911Z  INFO sglang_router_rs::server: Waiting for 2 workers to become healthy",
        "2025-03-12T08:52:52.711021Z  INFO sglang_router_rs::server: All 2 workers are healthy",
        "2025-03-12T08:52:52.711400Z  INFO sglang_router_rs::server: Starting router on 0.0.0.0:31000 | "
        "mode: "
        "PrefillDecode { prefill_urls: [(\"http://174.1.60.1:30000\", Some(8998))], decode_urls: "
        "[\"http://174.1.60.5:30000\"] } | policy: CacheAware",
    };
    EXPECT_EQ(phases_line_by_line(rust, RoleKind::Router),
              (std::vector<Phase>{Phase::kInitialising, Phase::kInitialising, Phase::kReady}));
    EXPECT_EQ(*classify(rust, RoleKind::Router).since, at(2025, 3, 12, 8, 52, 52));
}

TEST(Phases, NothingRecognisedIsStarting) {
    EXPECT_EQ(classify({}).phase, Phase::kStarting);
    const auto result = classify({"bootstrap: mooncake 0.3.12.post1 (simulated)", "Collecting mooncake", ""});
    EXPECT_EQ(result.phase, Phase::kStarting);
    EXPECT_FALSE(result.since);
    EXPECT_EQ(result.last_line, "Collecting mooncake") << "blank lines are not the last line";
}

TEST(Phases, TimestampFormats) {
    EXPECT_EQ(parse_log_time("[2025-03-12 08:52:39] server_args=ServerArgs(", 2000),
              at(2025, 3, 12, 8, 52, 39));
    EXPECT_EQ(parse_log_time("[2025-03-12 08:52:39 DP0 TP1] Load weight begin.", 2000),
              at(2025, 3, 12, 8, 52, 39));
    EXPECT_EQ(parse_log_time("I0312 08:52:39.123456 4242 master.cpp:9] x", 2024), at(2024, 3, 12, 8, 52, 39));
    EXPECT_EQ(parse_log_time("2025-03-12T08:52:39.1Z  INFO x", 2000), at(2025, 3, 12, 8, 52, 39));
    EXPECT_FALSE(parse_log_time("[2025-13-12 08:52:39] bad month", 2000));
    EXPECT_FALSE(parse_log_time("INFO:     Uvicorn running on http://0.0.0.0:30000", 2000));
    EXPECT_FALSE(parse_log_time("I am a line", 2000));
    EXPECT_FALSE(parse_log_time("", 2000));
}

TEST(Phases, IdsAndLabels) {
    EXPECT_EQ(phase_id(Phase::kLoadingWeights), "loading-weights");
    EXPECT_EQ(phase_id(Phase::kCudaGraphs), "cuda-graphs");
    EXPECT_EQ(phase_label(Phase::kCudaGraphs), "capturing CUDA graphs");
}

// --- pdsim (docs/pdsim.md), captured from real runs: prefill is v0.5.4-like, no CUDA graphs ---

TEST(Phases, PdsimPrefillRankZero) {
    const Lines log = {
        "[2026-11-29 22:22:54] server_args=ServerArgs(model_path='/m', tokenizer_path='/m', "
        "trust_remote_code=False, served_model_name='/m', host='127.0.72.1', port=30000)",
        "[2026-11-29 22:22:54 TP0] Init torch distributed begin.",
        "I1129 22:22:54.560764 6655 transfer_engine_impl.cpp:0] Transfer Engine RPC using P2P handshake, "
        "listening on 127.0.72.1:15655",
        "I1129 22:22:54.560766 6655 transfer_engine_impl.cpp:0] Auto-discovering topology...",
        "I1129 22:22:54.560766 6655 transfer_engine_impl.cpp:0] Topology discovery complete. Found 1 HCAs.",
        "I1129 22:22:54.560767 6655 rdma_context.cpp:0] RDMA device: mlx5_0, LID: 0, GID: (GID_Index 3) "
        "00:00:00:00:00:00:00:00:00:00:ff:ff:7f:00:00:01",
        "[2026-11-29 22:22:54 TP0] Init torch distributed ends. mem usage=0.00 GB",
        "[2026-11-29 22:22:54 TP0] Load weight begin. avail mem=78.21 GB",
        "[2026-11-29 22:22:54 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail "
        "mem=20.10 GB, mem usage=58.11 GB.",
        "[2026-11-29 22:22:54 TP0] KV Cache is allocated. #tokens: 1000000, KV size: 12.00 GB",
        "[2026-11-29 22:22:54 TP0] Memory pool end. avail mem=8.00 GB",
        "[2026-11-29 22:22:54 TP0] Cuda graph is disabled for prefill server",
        "[2026-11-29 22:22:55 TP0] max_total_num_tokens=1000000, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, max_running_requests=4096, context_len=163840, available_gpu_mem=8.00 GB",
        "[2026-11-29 22:22:55] INFO:     Uvicorn running on http://127.0.72.1:30000 (Press CTRL+C to quit)",
        "[2026-11-29 22:22:55] Start of pd disaggregation warmup ...",
        "[2026-11-29 22:22:55] End of prefill disaggregation mode warmup with status 200, resp: "
        "{\"meta_info\":{\"cached_tokens\":0,\"completion_tokens\":1}}",
        "[2026-11-29 22:22:55] The server is fired up and ready to roll!",
    };
    using P = Phase;
    EXPECT_EQ(phases_line_by_line(log),
              (std::vector<Phase>{P::kInitialising, P::kInitialising, P::kInitialising, P::kInitialising,
                                  P::kInitialising, P::kInitialising, P::kInitialising, P::kLoadingWeights,
                                  P::kKvCache, P::kKvCache, P::kKvCache, P::kKvCache, P::kKvCache, P::kHttpUp,
                                  P::kWarmup, P::kWarmup, P::kReady}));
}

TEST(Phases, PdsimRankOneDecodeWithoutHcasMasterRoutersAndCrash) {
    EXPECT_EQ(classify({"[2026-11-29 22:22:54 TP8] Load weight begin. avail mem=78.21 GB",
                        "[2026-11-29 22:22:55] Dummy health check server started in background thread at "
                        "127.0.72.2:30000"})
                  .phase,
              Phase::kJoined);

    const auto decode = classify({
        "[2026-11-29 22:22:54 TP0] Init torch distributed begin.",
        "I1129 22:22:54.560113 6649 transfer_engine_impl.cpp:0] Topology discovery complete. Found 0 HCAs.",
        "I1129 22:22:54.560115 6649 tcp_transport.cpp:0] TcpTransport: listen on port 15650",
        "[2026-11-29 22:22:54] KV cache is forced as chunk cache for decode server",
        "[2026-11-29 22:22:54 TP0] Capture cuda graph begin. This can take up to several minutes.",
    });
    EXPECT_EQ(decode.phase, Phase::kCudaGraphs);
    EXPECT_EQ(decode.warnings.size(), 1u);

    EXPECT_EQ(
        classify({"I1129 22:22:54.560364 6650 master.cpp:0] Master config: rpc_address=127.0.72.4, "
                  "rpc_port=50061, metrics_host=127.0.72.4, metrics_port=9013, enable_http_metadata_server=0",
                  "I1129 22:22:54.560536 6650 master.cpp:0] Master service started on port 50061, "
                  "max_threads=16, enable_metric_reporting=1, metrics_port=9013"},
                 RoleKind::MooncakeMaster)
            .phase,
        Phase::kReady);
    EXPECT_EQ(
        classify({"[2026-11-29 22:22:54] MiniLB is only for debugging purposes, it only supports random "
                  "policy!",
                  "[2026-11-29 22:22:54] INFO:     Uvicorn running on http://127.0.72.5:31000 (Press CTRL+C "
                  "to quit)"},
                 RoleKind::Router)
            .phase,
        Phase::kReady);
    EXPECT_EQ(classify({"[2026-11-29 22:22:54] Starting router on 127.0.72.6:31000 | mode: PrefillDecode { "
                        "prefill_urls: [(\"http://127.0.72.1:30000\", Some(8998))], decode_urls: "
                        "[\"http://127.0.72.3:30000\"] } | policy: cache_aware"},
                       RoleKind::Router)
                  .phase,
              Phase::kReady);
    const auto crash =
        classify({"[2026-11-29 22:22:54 TP0] Load weight begin. avail mem=78.21 GB",
                  "[2026-11-29 22:22:54 TP0] Scheduler hit an exception: pdsim injected crash at "
                  "weights"});
    EXPECT_EQ(crash.phase, Phase::kFailed);
}

// Regression (tests/fuzz/log_phases_fuzz.cpp): std::regex recursed once per character of the `.*` in
// "Capture .*cuda graph" and a 30 KB line overflowed the stack (SIGSEGV in status/start). Long lines are
// matched on their first 4 KiB: a phase line of normal length still counts, the rest cannot crash.
TEST(Phases, VeryLongLinesDoNotOverflowTheStack) {
    const std::string filler(200000, 'x');
    const auto capture =
        classify({"[2025-03-12 08:57:12 DP0 TP0] Capture " + filler + " cuda graph begin",
                  "F0312 08:52:39.123456 4242 x.cpp:9] " + filler + " Check failed",
                  "[2025-03-12 08:57:12] Rank " + std::string(200000, '7') + " scheduler is dead",
                  "Found 0 HCAs " + filler + " MC_FORCE_TCP is set"});
    EXPECT_EQ(capture.phase, Phase::kStarting);
    EXPECT_EQ(classify({"[2025-03-12 08:57:12 DP0 TP0] Capture cuda graph begin. " + filler}).phase,
              Phase::kCudaGraphs);
}

}  // namespace
}  // namespace pdctl::runtime

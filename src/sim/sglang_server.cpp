// Start-up of a simulated `python3 -m sglang.launch_server` node: the same phases, log lines and
// port behaviour as the real server (docs/pdsim.md), at test speed.

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>

#include "sim/bootstrap_server.hpp"
#include "sim/gated_launch.hpp"
#include "sim/http_util.hpp"
#include "sim/kernel_cache.hpp"
#include "sim/log.hpp"
#include "sim/phases.hpp"
#include "sim/program_args.hpp"
#include "sim/programs.hpp"
#include "sim/rendezvous.hpp"
#include "sim/sglang_api.hpp"
#include "sim/stack_frames.hpp"
#include "sim/transfer_engine.hpp"
#include "sim/weight_files.hpp"

namespace pdsim {
namespace {

using Clock = std::chrono::steady_clock;

class ServerNode {
  public:
    ServerNode(ServerArgs args, const Knobs& knobs)
        : args_(std::move(args)), knobs_(knobs), tp_(args_.tp_rank()) {}

    [[noreturn]] void run() {
        if (args_.prefill() && args_.node_rank == 0) {
            start_bootstrap_server();
        }
        record_step(Step::kRendezvous);
        run_phase(
            Phase::kInit, "Init torch distributed begin.", [this] { init_distributed(); }, "");
        wait_at_gate();
        log_sched(tp_, "Init torch distributed ends. mem usage=0.00 GB");
        record_step(Step::kLoadingWeights);
        load_weights();
        // The KV cache is sized from the smallest free memory of the group (an all-reduce): every
        // member must have loaded its weights first.
        record_step(Step::kMemoryProfiling);
        group_barrier("memory profiling");
        if (args_.decode()) {
            log_main("KV cache is forced as chunk cache for decode server");
        }
        record_step(Step::kKvCache);
        run_phase(Phase::kKv, "KV Cache is allocated. #tokens: 1000000, KV size: 12.00 GB", {},
                  "Memory pool end. avail mem=8.00 GB");
        record_step(Step::kCudaGraphs);
        // Kernels are compiled on first use, which is the capture (and, on prefill, the warm-up shapes).
        const auto compile = [this] { compile_kernels(); };
        if (args_.prefill()) {
            // v0.5.4-v0.5.12 force-disable CUDA graphs on prefill; the phase still takes its time.
            run_phase(Phase::kCudaGraph, "Cuda graph is disabled for prefill server", compile, "");
        } else {
            run_phase(Phase::kCudaGraph, "Capture cuda graph begin. This can take up to several minutes.",
                      compile, "Capture cuda graph end. Time elapsed: 1.23 s");
        }
        log_schedf(tp_,
                   "max_total_num_tokens=1000000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
                   "max_running_requests={}, context_len={}, available_gpu_mem=8.00 GB",
                   args_.max_running_requests.value_or(4096), args_.context_length);
        // A forward pass (the warm-up request, then every request) runs on all members at once.
        record_step(Step::kServing);
        group_barrier("serving");
        if (args_.node_rank == 0) {
            serve_api();
        } else {
            serve_dummy_health();
        }
        idle_forever();
    }

  private:
    [[noreturn]] void fatal(std::string_view message) {
        log_schedf(tp_, "Scheduler hit an exception: {}", message);
        exit_now(1);
    }

    void group_barrier(const std::string& step) {
        if (rendezvous_) {
            rendezvous_->barrier(step);
        }
    }

    // Logs the phase's first line, then honours PDSIM_HANG_AT / PDSIM_CRASH_AT, then does `work`
    // (which counts against the phase's duration) and logs the last line.
    void run_phase(Phase phase, std::string_view begin, const std::function<void()>& work,
                   std::string_view end) {
        log_sched(tp_, begin);
        if (knobs_.hang.hits(phase, args_.node_rank)) {
            idle_forever();
        }
        const Millis duration = knobs_.duration(phase);
        if (knobs_.crash.hits(phase, args_.node_rank)) {
            sleep_ms(duration / 2);
            fatal(fmt::format("pdsim injected crash at {}", phase_name(phase)));
        }
        const auto deadline = Clock::now() + duration;
        if (work) {
            work();
        }
        sleep_ms(std::chrono::duration_cast<Millis>(deadline - Clock::now()));
        if (!end.empty()) {
            log_sched(tp_, end);
        }
    }

    // Reads the model's files when --model-path is a directory here (sim/weight_files.hpp); the phase
    // lasts at least PDSIM_WEIGHTS_MS either way.
    void load_weights() {
        WeightRead read;
        run_phase(
            Phase::kWeights, "Load weight begin. avail mem=78.21 GB",
            [&] { read = read_weight_files(args_.model_path); }, "");
        if (!read.error.empty()) {
            fatal(fmt::format("OSError: could not read weight file {}", read.error));
        }
        if (read.found) {
            log_schedf(tp_, "pdsim: read {} weight files, {} bytes, in {} ms", read.files, read.bytes,
                       read.elapsed.count());
        }
        log_sched(
            tp_,
            "Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=20.10 GB, mem "
            "usage=58.11 GB.");
    }

    void compile_kernels() {
        const auto cache = use_kernel_cache(kernel_cache_root(), args_, knobs_.compile);
        log_schedf(tp_, "pdsim: kernel cache {} ({}), compiled in {} ms", cache.hit ? "hit" : "miss",
                   cache.entry, cache.compiled.count());
    }

    // --gated-launch-port (sim/gated_launch.hpp): joined, nothing of the model in GPU memory yet.
    void wait_at_gate() {
        if (!args_.gated_launch_port) {
            return;
        }
        if (args_.node_rank == 0) {
            gate_.serve(args_.host, *args_.gated_launch_port, tp_);
        }
        log_schedf(tp_, "Gated launch waiting for activation. rank={}", tp_);
        const auto began = Clock::now();
        if (args_.node_rank == 0) {
            gate_.wait_until_activated();
        }
        group_barrier("gated launch");  // the others go on when rank 0 does, as with upstream's broadcast
        log_schedf(tp_, "Gated launch activated. elapsed={:.2f} s",
                   std::chrono::duration<double>(Clock::now() - began).count());
    }

    void start_bootstrap_server() {
        // Started by the tokenizer manager before the schedulers finish loading, so the bootstrap
        // port answers long before the API port opens.
        bootstrap_ = std::make_unique<BootstrapServer>(PrefillParallelInfo{args_.tp_size, args_.dp_size, 1});
        std::string error;
        if (!bootstrap_->start(args_.host, args_.bootstrap_port, error)) {
            log_mainf("OSError: [Errno 98] error while attempting to bind on address ('{}', {}): {}",
                      args_.host, args_.bootstrap_port, error);
            exit_now(1);
        }
    }

    void init_distributed() {
        if (args_.pd() && args_.transfer_backend.rfind("mooncake", 0) == 0) {
            log_transfer_engine_init(args_, knobs_.hcas);
        }
        if (args_.nnodes > 1) {
            auto dist_init = split_host_port(args_.dist_init_addr);
            if (!dist_init) {
                fatal(fmt::format("ValueError: invalid --dist-init-addr '{}', expected HOST:PORT",
                                  args_.dist_init_addr));
            }
            rendezvous_ = std::make_unique<Rendezvous>(RendezvousConfig{
                *dist_init, args_.nnodes, args_.node_rank, tp_, knobs_.dist_timeout, knobs_.peer_death});
            if (args_.node_rank == 0) {
                rendezvous_->listen();
            }
            rendezvous_->join();
            rendezvous_->monitor();
        }
        if (args_.prefill()) {
            register_prefill_ranks();
        }
    }

    void register_prefill_ranks() {
        // Multi-node: the bootstrap server runs on the node of --dist-init-addr. Single node: --host.
        std::string host = connect_host(args_.host);
        if (args_.nnodes > 1) {
            host = split_host_port(args_.dist_init_addr)->host;
        }
        const int per_node = std::max(1, args_.tp_size / args_.nnodes);
        for (int local = 0; local < per_node; ++local) {
            const int rank = tp_ + local;
            const int attn_tp = std::max(1, args_.tp_size / args_.dp_size);
            nlohmann::json registration = {{"role", "Prefill"},
                                           {"rank_ip", local_ip(args_)},
                                           {"rank_port", zmq_port(rank)},
                                           {"engine_rank", rank},
                                           {"attn_tp_size", attn_tp},
                                           {"attn_tp_rank", rank % attn_tp},
                                           {"attn_dp_size", args_.dp_size},
                                           {"attn_dp_rank", rank / attn_tp},
                                           {"pp_size", 1},
                                           {"pp_rank", 0},
                                           {"system_dp_size", args_.dp_size},
                                           {"system_dp_rank", rank / attn_tp}};
            if (auto error = register_to_bootstrap(host, args_.bootstrap_port, registration)) {
                fatal(*error);
            }
        }
    }

    void serve_api() {
        std::string error;
        if (knobs_.health_fault == "garbage") {
            if (!serve_garbage(args_.host, args_.port, error)) {
                log_mainf("ERROR:    [Errno 98] error while attempting to bind on address ('{}', {}): {}",
                          args_.host, args_.port, error);
                exit_now(1);
            }
            log_mainf("INFO:     Uvicorn running on http://{}:{} (Press CTRL+C to quit)", args_.host,
                      args_.port);
            log_main("The server is fired up and ready to roll!");
            return;
        }
        api_ = std::make_unique<ApiServer>(
            GenerateContext{&args_, bootstrap_.get(), nullptr, nullptr, knobs_.kv_timeout, knobs_.kv_fault},
            knobs_.capacity, knobs_.health_fault, knobs_.health_delay);
        if (!api_->start(error)) {
            log_mainf("ERROR:    [Errno 98] error while attempting to bind on address ('{}', {}): {}",
                      args_.host, args_.port, error);
            exit_now(1);
        }
        log_mainf("INFO:     Uvicorn running on http://{}:{} (Press CTRL+C to quit)", args_.host, args_.port);
        if (!args_.skip_server_warmup) {
            warm_up();
        }
        api_->mark_up();
        log_main("The server is fired up and ready to roll!");
    }

    void warm_up() {
        if (args_.pd()) {
            log_main("Start of pd disaggregation warmup ...");
        }
        if (knobs_.hang.hits(Phase::kWarmup, args_.node_rank)) {
            record_step(Step::kWarmup);
            idle_forever();
        }
        const Millis duration = knobs_.duration(Phase::kWarmup);
        if (knobs_.crash.hits(Phase::kWarmup, args_.node_rank)) {
            sleep_ms(duration / 2);
            log_main("Initialization failed. warmup error: pdsim injected crash at warmup");
            exit_now(1);
        }
        const auto deadline = Clock::now() + duration;
        // Like the real warm-up, a request to our own API; PD modes use fake bootstrap fields so
        // no peer is needed.
        nlohmann::json request = {{"sampling_params", {{"temperature", 0}, {"max_new_tokens", 8}}}};
        if (args_.pd()) {
            request["input_ids"] = {0, 1, 2, 3};
            request["bootstrap_host"] = kFakeBootstrapHost;
            request["bootstrap_room"] = 0;
        } else {
            request["text"] = "The capital city of France is";
        }
        auto client = make_client(connect_host(args_.host), args_.port, Millis{5000}, Millis{30000});
        auto result = client->Post("/generate", request.dump(), "application/json");
        if (!result || result->status != 200) {
            log_mainf("Initialization failed. warmup error: {}",
                      describe_failure(result, connect_host(args_.host), args_.port));
            exit_now(1);
        }
        sleep_ms(std::chrono::duration_cast<Millis>(deadline - Clock::now()));
        if (args_.pd()) {
            log_mainf("End of prefill disaggregation mode warmup with status {}, resp: {}", result->status,
                      result->body);
        }
    }

    void serve_dummy_health() {
        dummy_ = std::make_unique<DummyHealthServer>(args_.enable_metrics);
        std::string error;
        if (!dummy_->start(args_.host, args_.port, error)) {
            fatal(fmt::format("OSError: [Errno 98] error while attempting to bind on address ('{}', {}): {}",
                              args_.host, args_.port, error));
        }
        log_mainf("Dummy health check server started in background thread at {}:{}", args_.host, args_.port);
    }

    ServerArgs args_;
    Knobs knobs_;
    int tp_;
    std::unique_ptr<BootstrapServer> bootstrap_;
    std::unique_ptr<Rendezvous> rendezvous_;
    GatedLaunch gate_;
    std::unique_ptr<ApiServer> api_;
    std::unique_ptr<DummyHealthServer> dummy_;
};

}  // namespace

void run_sglang_server(std::span<const std::string> argv) {
    ServerArgs args = parse_server_args(argv);
    Knobs knobs = load_knobs();
    log_main("server_args=" + server_args_repr(args));
    if (auto problem = server_args_problem(args)) {
        log_mainf("Exception: {}", *problem);
        exit_now(1);
    }
    ServerNode node(std::move(args), knobs);
    node.run();
}

}  // namespace pdsim

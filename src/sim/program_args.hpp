#pragma once
// Typed arguments of the three programs pdsim stands in for, parsed from the real programs' flags
// (names, defaults, aliases) so a pdctl plan differs from production only in the program invoked.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pdsim {

// python3 -m sglang.launch_server
struct ServerArgs {
    std::string model_path;
    std::string tokenizer_path;     // default: model_path
    std::string served_model_name;  // default: model_path
    std::string host = "127.0.0.1";
    int port = 30000;
    int nnodes = 1;
    int node_rank = 0;
    std::string dist_init_addr;  // "HOST:PORT"; required when nnodes > 1
    int tp_size = 1;             // total TP across all nodes of the group
    int ep_size = 1;
    int dp_size = 1;
    std::string disaggregation_mode = "null";
    std::string transfer_backend = "mooncake";
    int bootstrap_port = 8998;
    std::string ib_device;
    bool trust_remote_code = false;
    bool skip_server_warmup = false;
    std::optional<int> gated_launch_port;  // --gated-launch-port: wait after joining until opened
    bool enable_metrics = false;           // --enable-metrics: /metrics on the API port
    // --incremental-streaming-output: each streamed chunk carries only the new text (default: all so far)
    bool incremental_streaming_output = false;
    bool disable_radix_cache = false;  // --disable-radix-cache: no prefix cache (cached_tokens always 0)
    int decode_log_interval = 40;      // --decode-log-interval: decode passes between "Decode batch" lines
    bool enable_dp_attention = false;
    std::optional<double> mem_fraction_static;
    std::optional<int> max_running_requests;
    int context_length = 163840;
    // What prefill and decode must agree on for the KV cache to move between them (doctor --live).
    int page_size = 1;
    std::string kv_cache_dtype = "auto";
    std::vector<std::string> ignored;  // flags pdsim accepted without modelling them

    bool pd() const { return disaggregation_mode != "null"; }
    bool prefill() const { return disaggregation_mode == "prefill"; }
    bool decode() const { return disaggregation_mode == "decode"; }
    // The global TP rank of this node's first GPU, as the scheduler's log prefix shows it.
    int tp_rank() const { return node_rank * std::max(1, tp_size / std::max(1, nnodes)); }
};

// Throws UsageError for what argparse rejects (exit 2).
ServerArgs parse_server_args(std::span<const std::string> argv);
// What SGLang rejects after parsing (an exception at start-up, exit 1); nullopt if none.
std::optional<std::string> server_args_problem(const ServerArgs& args);
std::string server_args_repr(const ServerArgs& args);  // "ServerArgs(model_path='...', ...)"
nlohmann::json server_args_json(const ServerArgs& args);

// python3 -m sglang_router.launch_router
struct PrefillWorker {
    std::string url;
    std::optional<int> bootstrap_port;  // omitted or "none" -> null in the request
};

struct RouterArgs {
    bool pd_disaggregation = false;
    bool mini_lb = false;
    std::vector<PrefillWorker> prefill;
    std::vector<std::string> decode;
    std::string host = "0.0.0.0";
    int port = 30000;
    std::string policy = "cache_aware";
    std::string health_check_endpoint = "/health";
    int request_timeout_secs = 1800;
    int worker_startup_timeout_secs = 1800;  // Rust router and SMG: a worker still pending then fails
    std::string prefill_policy;              // default: --policy
    std::string decode_policy;
    bool smg = false;  // `smg launch` rather than `python3 -m sglang_router.launch_router`
    // The metrics listener (not MiniLB's): upstream binds 0.0.0.0 (SMG) or 127.0.0.1 (sglang-router)
    // by default; pdsim binds --host unless --prometheus-host is given, so that simulated clusters on
    // their own loopback addresses never share port 29000 on one wildcard socket.
    int prometheus_port = 29000;
    std::string prometheus_host;  // "": --host
};

RouterArgs parse_router_args(std::span<const std::string> argv);

// mooncake_master (gflags)
struct MasterArgs {
    int port = 50051;  // --rpc_port wins when non-zero
    std::string rpc_address = "0.0.0.0";
    int max_threads = 16;
    bool enable_metric_reporting = true;
    std::string metrics_host = "0.0.0.0";
    int metrics_port = 9003;
    bool enable_http_metadata_server = false;
    std::string http_metadata_server_host = "0.0.0.0";
    int http_metadata_server_port = 8080;
};

MasterArgs parse_master_args(std::span<const std::string> argv);

}  // namespace pdsim

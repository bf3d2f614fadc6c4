#include "sim/program_args.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "sim/args.hpp"

namespace pdsim {
namespace {

using enum Arity;

// SGLang flags pdsim reads or must not misparse. A switch listed here never eats the next token;
// a value flag always does. Flags not listed are ignored (a value is consumed if one follows).
constexpr std::array kServerFlags = {
    FlagSpec{"--model-path", kOne},
    FlagSpec{"--model", kOne, "--model-path"},
    FlagSpec{"--tokenizer-path", kOne},
    FlagSpec{"--served-model-name", kOne},
    FlagSpec{"--host", kOne},
    FlagSpec{"--port", kOne},
    FlagSpec{"--nnodes", kOne},
    FlagSpec{"--node-rank", kOne},
    FlagSpec{"--dist-init-addr", kOne},
    FlagSpec{"--nccl-init-addr", kOne, "--dist-init-addr"},
    FlagSpec{"--tp-size", kOne},
    FlagSpec{"--tp", kOne, "--tp-size"},
    FlagSpec{"--tensor-parallel-size", kOne, "--tp-size"},
    FlagSpec{"--ep-size", kOne},
    FlagSpec{"--ep", kOne, "--ep-size"},
    FlagSpec{"--expert-parallel-size", kOne, "--ep-size"},
    FlagSpec{"--dp-size", kOne},
    FlagSpec{"--dp", kOne, "--dp-size"},
    FlagSpec{"--data-parallel-size", kOne, "--dp-size"},
    FlagSpec{"--disaggregation-mode", kOne},
    FlagSpec{"--disaggregation-transfer-backend", kOne},
    FlagSpec{"--disaggregation-bootstrap-port", kOne},
    FlagSpec{"--disaggregation-ib-device", kOne},
    FlagSpec{"--mem-fraction-static", kOne},
    FlagSpec{"--max-running-requests", kOne},
    FlagSpec{"--context-length", kOne},
    FlagSpec{"--page-size", kOne},
    FlagSpec{"--kv-cache-dtype", kOne},
    FlagSpec{"--trust-remote-code", kSwitch},
    FlagSpec{"--skip-server-warmup", kSwitch},
    FlagSpec{"--gated-launch-port", kOne},
    FlagSpec{"--enable-dp-attention", kSwitch},
    FlagSpec{"--enable-metrics", kSwitch},
    FlagSpec{"--incremental-streaming-output", kSwitch},
    FlagSpec{"--decode-log-interval", kOne},
    FlagSpec{"--enable-eplb", kSwitch},
    FlagSpec{"--enable-ep-moe", kSwitch},
    FlagSpec{"--enable-deepep-moe", kSwitch},
    FlagSpec{"--enable-two-batch-overlap", kSwitch},
    FlagSpec{"--enable-hierarchical-cache", kSwitch},
    FlagSpec{"--enable-torch-compile", kSwitch},
    FlagSpec{"--enable-mixed-chunk", kSwitch},
    FlagSpec{"--enable-cache-report", kSwitch},
    FlagSpec{"--enable-http2", kSwitch},
    FlagSpec{"--disable-cuda-graph", kSwitch},
    FlagSpec{"--disable-radix-cache", kSwitch},
    FlagSpec{"--disable-overlap-schedule", kSwitch},
    FlagSpec{"--disable-custom-all-reduce", kSwitch},
    FlagSpec{"--disaggregation-decode-enable-radix-cache", kSwitch},
    FlagSpec{"--prefill-round-robin-balance", kSwitch},
    FlagSpec{"--skip-tokenizer-init", kSwitch},
    FlagSpec{"--log-requests", kSwitch},
    FlagSpec{"--show-time-cost", kSwitch},
};

constexpr std::array kRouterFlags = {
    FlagSpec{"--pd-disaggregation", kSwitch},
    FlagSpec{"--mini-lb", kSwitch},
    FlagSpec{"--prefill", kOneOrTwo},
    FlagSpec{"--decode", kOne},
    FlagSpec{"--host", kOne},
    FlagSpec{"--port", kOne},
    FlagSpec{"--policy", kOne},
    FlagSpec{"--health-check-endpoint", kOne},
    FlagSpec{"--request-timeout-secs", kOne},
    FlagSpec{"--disable-health-check", kSwitch},
    FlagSpec{"--disable-retries", kSwitch},
    FlagSpec{"--disable-circuit-breaker", kSwitch},
    FlagSpec{"--dp-aware", kSwitch},
    FlagSpec{"--service-discovery", kSwitch},
    FlagSpec{"--worker-startup-timeout-secs", kOne},
    FlagSpec{"--worker-startup-check-interval", kOne},
    FlagSpec{"--prefill-policy", kOne},
    FlagSpec{"--decode-policy", kOne},
    FlagSpec{"--prometheus-port", kOne},
    FlagSpec{"--prometheus-host", kOne},
};

constexpr std::array kMasterFlags = {
    FlagSpec{"--port", kOne},
    FlagSpec{"--rpc_port", kOne},
    FlagSpec{"--rpc_address", kOne},
    FlagSpec{"--max_threads", kOne},
    FlagSpec{"--rpc_thread_num", kOne},
    FlagSpec{"--enable_metric_reporting", kSwitch},
    FlagSpec{"--metrics_host", kOne},
    FlagSpec{"--metrics_port", kOne},
    FlagSpec{"--enable_http_metadata_server", kSwitch},
    FlagSpec{"--http_metadata_server_host", kOne},
    FlagSpec{"--http_metadata_server_port", kOne},
    FlagSpec{"--enable_ha", kSwitch},
};

void require_choice(std::string_view flag, const std::string& value,
                    std::initializer_list<std::string_view> choices) {
    for (std::string_view choice : choices) {
        if (value == choice) {
            return;
        }
    }
    std::string list;
    for (std::string_view choice : choices) {
        list += fmt::format("{}'{}'", list.empty() ? "" : ", ", choice);
    }
    throw UsageError(fmt::format("argument {}: invalid choice: '{}' (choose from {})", flag, value, list));
}

std::string py_str(const std::string& value) {
    return value.empty() ? "None" : fmt::format("'{}'", value);
}

}  // namespace

ServerArgs parse_server_args(std::span<const std::string> argv) {
    ParsedArgs parsed = parse_flags(argv, kServerFlags, Dialect::kArgparse);
    ServerArgs args;
    args.model_path = parsed.str("--model-path", "");
    if (args.model_path.empty()) {
        throw UsageError("the following arguments are required: --model-path");
    }
    args.tokenizer_path = parsed.str("--tokenizer-path", args.model_path);
    args.served_model_name = parsed.str("--served-model-name", args.model_path);
    args.host = parsed.str("--host", args.host);
    args.port = parsed.integer("--port", args.port);
    args.nnodes = parsed.integer("--nnodes", args.nnodes);
    args.node_rank = parsed.integer("--node-rank", args.node_rank);
    args.dist_init_addr = parsed.str("--dist-init-addr", "");
    args.tp_size = parsed.integer("--tp-size", args.tp_size);
    args.ep_size = parsed.integer("--ep-size", args.ep_size);
    args.dp_size = parsed.integer("--dp-size", args.dp_size);
    args.disaggregation_mode = parsed.str("--disaggregation-mode", args.disaggregation_mode);
    require_choice("--disaggregation-mode", args.disaggregation_mode, {"null", "prefill", "decode"});
    args.transfer_backend = parsed.str("--disaggregation-transfer-backend", args.transfer_backend);
    require_choice("--disaggregation-transfer-backend", args.transfer_backend,
                   {"mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp"});
    args.bootstrap_port = parsed.integer("--disaggregation-bootstrap-port", args.bootstrap_port);
    args.ib_device = parsed.str("--disaggregation-ib-device", "");
    args.trust_remote_code = parsed.has("--trust-remote-code");
    args.skip_server_warmup = parsed.has("--skip-server-warmup");
    if (parsed.has("--gated-launch-port")) {
        args.gated_launch_port = parsed.integer("--gated-launch-port", 0);
    }
    args.enable_metrics = parsed.has("--enable-metrics");
    args.incremental_streaming_output = parsed.has("--incremental-streaming-output");
    args.disable_radix_cache = parsed.has("--disable-radix-cache");
    args.decode_log_interval = parsed.integer("--decode-log-interval", args.decode_log_interval);
    args.enable_dp_attention = parsed.has("--enable-dp-attention");
    if (auto fraction = parsed.last("--mem-fraction-static")) {
        char* end = nullptr;
        args.mem_fraction_static = std::strtod(fraction->c_str(), &end);
        if (fraction->empty() || *end != '\0') {
            throw UsageError(
                fmt::format("argument --mem-fraction-static: invalid float value: '{}'", *fraction));
        }
    }
    if (parsed.has("--max-running-requests")) {
        args.max_running_requests = parsed.integer("--max-running-requests", 0);
    }
    args.context_length = parsed.integer("--context-length", args.context_length);
    args.page_size = parsed.integer("--page-size", args.page_size);
    args.kv_cache_dtype = parsed.str("--kv-cache-dtype", args.kv_cache_dtype);
    require_choice("--kv-cache-dtype", args.kv_cache_dtype,
                   {"auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1"});
    args.ignored = parsed.ignored();
    return args;
}

std::optional<std::string> server_args_problem(const ServerArgs& args) {
    if (args.nnodes < 1 || args.node_rank < 0 || args.node_rank >= args.nnodes) {
        return fmt::format("node_rank={} is out of range for nnodes={}", args.node_rank, args.nnodes);
    }
    if (args.nnodes > 1 && args.dist_init_addr.empty()) {
        return "--dist-init-addr is required when nnodes > 1";
    }
    if (args.tp_size < 1 || args.dp_size < 1 || args.ep_size < 1) {
        return "tp_size, dp_size and ep_size must be positive";
    }
    if (args.prefill() && args.transfer_backend == "fake") {
        return "AssertionError: Prefill server does not support 'fake' as the transfer backend";
    }
    return std::nullopt;
}

std::string server_args_repr(const ServerArgs& args) {
    return fmt::format(
        "ServerArgs(model_path={}, tokenizer_path={}, trust_remote_code={}, served_model_name={}, "
        "host={}, port={}, mem_fraction_static={}, max_running_requests={}, context_length={}, tp_size={}, "
        "dp_size={}, ep_size={}, enable_dp_attention={}, dist_init_addr={}, nnodes={}, node_rank={}, "
        "skip_server_warmup={}, disaggregation_mode={}, disaggregation_transfer_backend={}, "
        "disaggregation_bootstrap_port={}, disaggregation_ib_device={})",
        py_str(args.model_path), py_str(args.tokenizer_path), args.trust_remote_code ? "True" : "False",
        py_str(args.served_model_name), py_str(args.host), args.port,
        args.mem_fraction_static ? fmt::format("{}", *args.mem_fraction_static) : "None",
        args.max_running_requests ? fmt::format("{}", *args.max_running_requests) : "None",
        args.context_length, args.tp_size, args.dp_size, args.ep_size,
        args.enable_dp_attention ? "True" : "False", py_str(args.dist_init_addr), args.nnodes, args.node_rank,
        args.skip_server_warmup ? "True" : "False", py_str(args.disaggregation_mode),
        py_str(args.transfer_backend), args.bootstrap_port, py_str(args.ib_device));
}

nlohmann::json server_args_json(const ServerArgs& args) {
    auto or_null = [](const std::string& value) {
        return value.empty() ? nlohmann::json() : nlohmann::json(value);
    };
    return {
        {"model_path", args.model_path},
        {"tokenizer_path", args.tokenizer_path},
        {"served_model_name", args.served_model_name},
        {"trust_remote_code", args.trust_remote_code},
        {"host", args.host},
        {"port", args.port},
        {"mem_fraction_static",
         args.mem_fraction_static ? nlohmann::json(*args.mem_fraction_static) : nullptr},
        {"max_running_requests",
         args.max_running_requests ? nlohmann::json(*args.max_running_requests) : nullptr},
        {"context_length", args.context_length},
        {"page_size", args.page_size},
        {"kv_cache_dtype", args.kv_cache_dtype},
        {"tp_size", args.tp_size},
        {"dp_size", args.dp_size},
        {"ep_size", args.ep_size},
        {"enable_dp_attention", args.enable_dp_attention},
        {"dist_init_addr", or_null(args.dist_init_addr)},
        {"nnodes", args.nnodes},
        {"node_rank", args.node_rank},
        {"skip_server_warmup", args.skip_server_warmup},
        {"gated_launch_port", args.gated_launch_port ? nlohmann::json(*args.gated_launch_port) : nullptr},
        {"disaggregation_mode", args.disaggregation_mode},
        {"disaggregation_transfer_backend", args.transfer_backend},
        {"disaggregation_bootstrap_port", args.bootstrap_port},
        {"disaggregation_ib_device", or_null(args.ib_device)},
    };
}

RouterArgs parse_router_args(std::span<const std::string> argv) {
    ParsedArgs parsed = parse_flags(argv, kRouterFlags, Dialect::kArgparse);
    RouterArgs args;
    args.pd_disaggregation = parsed.has("--pd-disaggregation");
    args.mini_lb = parsed.has("--mini-lb");
    for (const auto& values : parsed.all("--prefill")) {
        PrefillWorker worker{values.at(0), std::nullopt};
        if (values.size() > 1 && values[1] != "none") {
            char* end = nullptr;
            long port = std::strtol(values[1].c_str(), &end, 10);
            if (*end != '\0' || port <= 0 || port > 65535) {
                // Two URLs after one --prefill end up here, as upstream's int() raises ValueError.
                throw UsageError(fmt::format("argument --prefill: invalid bootstrap port: '{}'", values[1]));
            }
            worker.bootstrap_port = static_cast<int>(port);
        }
        args.prefill.push_back(std::move(worker));
    }
    for (const auto& values : parsed.all("--decode")) {
        args.decode.push_back(values.at(0));
    }
    args.host = parsed.str("--host", args.host);
    args.port = parsed.integer("--port", args.port);
    args.policy = parsed.str("--policy", args.policy);
    args.health_check_endpoint = parsed.str("--health-check-endpoint", args.health_check_endpoint);
    args.request_timeout_secs = parsed.integer("--request-timeout-secs", args.request_timeout_secs);
    args.worker_startup_timeout_secs =
        parsed.integer("--worker-startup-timeout-secs", args.worker_startup_timeout_secs);
    args.prefill_policy = parsed.str("--prefill-policy", args.policy);
    args.decode_policy = parsed.str("--decode-policy", args.policy);
    args.prometheus_port = parsed.integer("--prometheus-port", args.prometheus_port);
    args.prometheus_host = parsed.str("--prometheus-host", args.prometheus_host);
    return args;
}

MasterArgs parse_master_args(std::span<const std::string> argv) {
    ParsedArgs parsed = parse_flags(argv, kMasterFlags, Dialect::kGflags);
    MasterArgs args;
    args.port = parsed.integer("--port", args.port);
    if (int rpc_port = parsed.integer("--rpc_port", 0); rpc_port != 0) {
        args.port = rpc_port;
    }
    args.rpc_address = parsed.str("--rpc_address", args.rpc_address);
    args.max_threads = parsed.integer("--max_threads", args.max_threads);
    args.enable_metric_reporting = parsed.boolean("--enable_metric_reporting", args.enable_metric_reporting);
    args.metrics_host = parsed.str("--metrics_host", args.metrics_host);
    args.metrics_port = parsed.integer("--metrics_port", args.metrics_port);
    args.enable_http_metadata_server =
        parsed.boolean("--enable_http_metadata_server", args.enable_http_metadata_server);
    args.http_metadata_server_host =
        parsed.str("--http_metadata_server_host", args.http_metadata_server_host);
    args.http_metadata_server_port =
        parsed.integer("--http_metadata_server_port", args.http_metadata_server_port);
    return args;
}

}  // namespace pdsim

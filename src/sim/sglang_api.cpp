#include "sim/sglang_api.hpp"

#include <chrono>
#include <utility>

#include "sim/http_util.hpp"

namespace pdsim {
namespace {

using json = nlohmann::json;

constexpr const char* kVersion = "0.5.4";  // the v0.5.4 behaviours pdsim models (see docs/pdsim.md)

long unix_time() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void ok_empty(const httplib::Request&, httplib::Response& res) {
    res.status = 200;
}

}  // namespace

void use_fastapi_not_found(httplib::Server& server) {
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.status == 404 && res.body.empty()) {
            reply_json(res, 404, {{"detail", "Not Found"}});
        }
    });
}

ApiServer::ApiServer(GenerateContext context, std::string health_fault, Millis health_delay)
    : context_(std::move(context)),
      args_(*context_.args),
      health_fault_(std::move(health_fault)),
      health_delay_(health_delay) {
    setup_routes();
}

bool ApiServer::start(std::string& error) {
    return serve_in_background(server_, args_.host, args_.port, error);
}

void ApiServer::setup_routes() {
    use_fastapi_not_found(server_);

    // Since v0.5.0 /health and /health_generate share one handler: 503 until the warm-up is over.
    auto health = [this](const httplib::Request&, httplib::Response& res) {
        if (!up_) {
            res.status = 503;
        } else if (health_fault_ == "500") {
            reply_text(res, 500, "Internal Server Error");
        } else {
            if (health_fault_ == "slow") sleep_ms(health_delay_);
            res.status = 200;
        }
    };
    server_.Get("/health", health);
    server_.Get("/health_generate", health);
    server_.Get("/ping", ok_empty);

    auto model_info = [this](const httplib::Request&, httplib::Response& res) {
        reply_json(res, 200,
                   {{"model_path", args_.model_path},
                    {"tokenizer_path", args_.tokenizer_path},
                    {"is_generation", true},
                    {"preferred_sampling_params", nullptr},
                    {"weight_version", "default"}});
    };
    server_.Get("/get_model_info", model_info);
    server_.Get("/model_info", model_info);

    auto server_info = [this](const httplib::Request&, httplib::Response& res) {
        json info = server_args_json(args_);
        info["internal_states"] = json::array();
        for (int dp = 0; dp < args_.dp_size; ++dp) {
            info["internal_states"].push_back({{"dp_rank", dp}, {"last_gen_throughput", 0.0}});
        }
        info["version"] = kVersion;
        info["pdsim"] = true;
        reply_json(res, 200, info);
    };
    server_.Get("/get_server_info", server_info);
    server_.Get("/server_info", server_info);

    server_.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
        reply_json(res, 200,
                   {{"object", "list"},
                    {"data", json::array({{{"id", args_.served_model_name},
                                           {"object", "model"},
                                           {"created", unix_time()},
                                           {"owned_by", "sglang"},
                                           {"root", args_.model_path},
                                           {"max_model_len", args_.context_length}}})}});
    });

    auto flush_cache = [](const httplib::Request&, httplib::Response& res) {
        reply_text(res, 200, "Cache flushed.\nPlease check backend logs for more details.\n");
    };
    server_.Get("/flush_cache", flush_cache);
    server_.Post("/flush_cache", flush_cache);

    auto generate = [this](const httplib::Request& req, httplib::Response& res) {
        GenerateReply reply;
        {
            ServingMetrics::Running running(metrics_);
            reply = handle_generate(context_, req.body);
        }
        if (reply.status == 200) {
            const auto outputs = reply.body.is_array() ? reply.body : json::array({reply.body});
            for (const auto& output : outputs) {
                const auto meta = output.value("meta_info", json::object());
                metrics_.finished(meta.value("prompt_tokens", 0L), meta.value("completion_tokens", 0L));
            }
        }
        reply_json(res, reply.status, reply.body);
    };
    // Only with --enable-metrics, as SGLang mounts it (404 otherwise).
    if (args_.enable_metrics) {
        server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
            res.status = 200;
            res.set_content(metrics_.prometheus(args_), "text/plain; version=0.0.4; charset=utf-8");
        });
    }
    server_.Post("/generate", generate);
    server_.Put("/generate", generate);
}

DummyHealthServer::DummyHealthServer() {
    use_fastapi_not_found(server_);
    server_.Get("/health", ok_empty);
    server_.Get("/health_generate", ok_empty);
    server_.Get("/ping", ok_empty);
}

bool DummyHealthServer::start(const std::string& host, int port, std::string& error) {
    return serve_in_background(server_, host, port, error);
}

}  // namespace pdsim

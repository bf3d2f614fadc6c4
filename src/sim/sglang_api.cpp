#include "sim/sglang_api.hpp"

#include <fmt/format.h>

#include <chrono>
#include <random>
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

std::string random_id() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return fmt::format("{:016x}{:016x}", rng(), rng());
}

// One answer (or streamed chunk) as SGLang shapes it; the finish reason only once it is finished.
json output_json(const GenerateItem& item, const std::string& id, const std::string& text,
                 int completion_tokens, Clock::time_point started, bool finished) {
    const double latency = std::chrono::duration<double>(Clock::now() - started).count();
    json finish = finished ? json{{"type", "length"}, {"length", completion_tokens}} : json(nullptr);
    return {{"text", text},
            {"meta_info",
             {{"id", id},
              {"prompt_tokens", item.prompt_tokens},
              {"completion_tokens", completion_tokens},
              {"cached_tokens", 0},
              {"finish_reason", finish},
              {"e2e_latency", latency}}}};
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

ApiServer::ApiServer(GenerateContext context, const CapacityKnobs& capacity, std::string health_fault,
                     Millis health_delay)
    : context_(std::move(context)),
      args_(*context_.args),
      capacity_(capacity, args_.tp_size, args_.max_running_requests.value_or(0)),
      health_fault_(std::move(health_fault)),
      health_delay_(health_delay) {
    context_.capacity = &capacity_;
    context_.metrics = &metrics_;
    metrics_.set_queue_source([this] { return capacity_.queued(); });
    setup_routes();
}

void ApiServer::generate(const httplib::Request& req, httplib::Response& res) {
    auto parsed = parse_generate(context_, req.body);
    if (const auto* failure = std::get_if<GenerateFailure>(&parsed)) {
        reply_json(res, failure->status, error_body(failure->message, failure->status));
        return;
    }
    auto request = std::make_shared<const GenerateRequest>(std::move(std::get<GenerateRequest>(parsed)));
    if (request->stream) {
        stream(request, res);
        return;
    }
    ServingMetrics::Running running(metrics_);
    json outputs = json::array();
    for (const GenerateItem& item : request->items) {
        const auto started = Clock::now();
        auto served = serve_item(context_, item, {});
        if (const auto* failure = std::get_if<GenerateFailure>(&served)) {
            reply_json(res, failure->status, error_body(failure->message, failure->status));
            return;
        }
        const int tokens = std::get<int>(served);
        // A prefill's half answers with no text and the one token it computed.
        const int reported = args_.prefill() ? 1 : tokens;
        outputs.push_back(
            output_json(item, random_id(), synthesize_text(item.prompt, tokens), reported, started, true));
        metrics_.finished(item.prompt_tokens, reported);
    }
    reply_json(res, 200, request->batched ? outputs : outputs[0]);
}

// "stream": true, as SGLang answers it: 200 and text/event-stream at once, then one `data: {json}`
// event per output token (its text all so far, or only the new part with
// --incremental-streaming-output), `data: {"error": ...}` if the request fails, and `data: [DONE]`.
void ApiServer::stream(std::shared_ptr<const GenerateRequest> request, httplib::Response& res) {
    res.status = 200;
    res.set_chunked_content_provider(
        "text/event-stream", [this, request](std::size_t, httplib::DataSink& sink) {
            ServingMetrics::Running running(metrics_);
            auto send = [&sink](const json& event) {
                const std::string line = "data: " + event.dump() + "\n\n";
                return sink.write(line.data(), line.size());
            };
            bool listening = true;
            for (std::size_t index = 0; index < request->items.size() && listening; ++index) {
                const GenerateItem& item = request->items[index];
                const auto started = Clock::now();
                const int planned = output_tokens(item);
                const std::string id = random_id();  // one request id for all its chunks
                WordStream words(item.prompt);
                std::string text;
                auto served = serve_item(context_, item, [&](int n) {
                    std::string delta = n == 1 ? "" : " ";
                    delta += words.next();
                    text += delta;
                    json event = output_json(item, id, args_.incremental_streaming_output ? delta : text, n,
                                             started, n == planned);
                    event["index"] = index;
                    listening = send(event);
                    return listening;
                });
                if (const auto* failure = std::get_if<GenerateFailure>(&served)) {
                    listening = send({{"error", {{"message", failure->message}}}, {"index", index}});
                    continue;
                }
                if (args_.prefill()) {
                    json event = output_json(item, id, "", 1, started, true);
                    event["index"] = index;
                    listening = send(event);
                }
                metrics_.finished(item.prompt_tokens, args_.prefill() ? 1 : std::get<int>(served));
            }
            if (listening) {
                const std::string done = "data: [DONE]\n\n";
                sink.write(done.data(), done.size());
            }
            sink.done();
            return true;
        });
}

bool ApiServer::start(std::string& error) {
    return serve_in_background(server_, args_.host, args_.port, error, serving_threads());
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

    auto generate = [this](const httplib::Request& req, httplib::Response& res) { this->generate(req, res); };
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

DummyHealthServer::DummyHealthServer(bool enable_metrics) {
    use_fastapi_not_found(server_);
    server_.Get("/health", ok_empty);
    server_.Get("/health_generate", ok_empty);
    server_.Get("/ping", ok_empty);
    if (enable_metrics) {
        // pdsim keeps its serving metrics on rank 0; what is left for another node is a valid, empty
        // exposition, so a scrape of it is up exactly while the rank's process serves its port.
        server_.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
            res.status = 200;
            res.set_content("", "text/plain; version=0.0.4; charset=utf-8");
        });
    }
}

bool DummyHealthServer::start(const std::string& host, int port, std::string& error) {
    return serve_in_background(server_, host, port, error);
}

}  // namespace pdsim

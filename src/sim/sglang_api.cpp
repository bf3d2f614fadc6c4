#include "sim/sglang_api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <utility>

#include "sim/http_util.hpp"
#include "sim/log.hpp"

namespace pdsim {
namespace {

using json = nlohmann::json;
// SGLang's answers are Python dicts serialized in insertion order (orjson): meta_info comes after
// text and output_ids, and a client may rely on that order, so pdsim keeps it.
using ordered = nlohmann::ordered_json;

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

// meta_info of one answer or streamed chunk, in the order SGLang's tokenizer manager builds it
// (python/sglang/srt/managers/tokenizer_manager.py, _handle_batch_output): id, finish_reason,
// prompt_tokens, weight_version, total_retractions, then completion_tokens and cached_tokens, and
// e2e_latency once the request finished.
ordered meta_info(const GenerateItem& item, const std::string& id, int completion_tokens, int cached_tokens,
                  Clock::time_point started, bool finished) {
    ordered meta;
    meta["id"] = id;
    meta["finish_reason"] =
        finished ? ordered{{"type", "length"}, {"length", completion_tokens}} : ordered(nullptr);
    meta["prompt_tokens"] = item.prompt_tokens;
    meta["weight_version"] = "default";
    meta["total_retractions"] = 0;
    meta["completion_tokens"] = completion_tokens;
    meta["cached_tokens"] = cached_tokens;
    if (finished) meta["e2e_latency"] = std::chrono::duration<double>(Clock::now() - started).count();
    return meta;
}

// {"text", "output_ids", "meta_info"}: the out dict of the tokenizer manager.
ordered output_json(std::string_view text, const ordered& output_ids, ordered meta) {
    ordered out;
    out["text"] = text;
    out["output_ids"] = output_ids;
    out["meta_info"] = std::move(meta);
    return out;
}

// The words and ids of a whole answer (what a non-streamed request gets at once).
std::pair<std::string, ordered> whole_answer(const GenerateItem& item, int tokens) {
    WordStream words(item.prompt);
    std::string text;
    ordered ids = ordered::array();
    for (int n = 1; n <= tokens; ++n) {
        text += n == 1 ? "" : " ";
        text += words.next();
        ids.push_back(words.last_id());
    }
    return {text, ids};
}

// The token a prefill computes and sends to the decode with the KV: its answer's one output id.
std::int64_t first_token_id(const GenerateItem& item) {
    WordStream words(item.prompt);
    words.next();
    return words.last_id();
}

void reply_ordered(httplib::Response& res, int status, const ordered& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
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
      // A decode keeps no prefix cache: SGLang forces a chunk cache there ("KV cache is forced as
      // chunk cache for decode server"), so only the prefill's hits count.
      cache_(static_cast<std::size_t>(capacity.prefix_cache_tokens),
             !args_.disable_radix_cache && !args_.decode()),
      scheduler_(args_),
      health_fault_(std::move(health_fault)),
      health_delay_(health_delay) {
    context_.capacity = &capacity_;
    context_.metrics = &metrics_;
    context_.cache = args_.decode() ? nullptr : &cache_;
    context_.scheduler = &scheduler_;
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
    ordered outputs = ordered::array();
    for (const GenerateItem& item : request->items) {
        const auto started = Clock::now();
        auto served = serve_item(context_, item, {});
        if (const auto* failure = std::get_if<GenerateFailure>(&served)) {
            reply_json(res, failure->status, error_body(failure->message, failure->status));
            return;
        }
        const ServedItem done = std::get<ServedItem>(served);
        // A prefill's half answers with no text and the one token it computed.
        const int reported = args_.prefill() ? 1 : done.output_tokens;
        auto [text, ids] = whole_answer(item, args_.prefill() ? 0 : done.output_tokens);
        if (args_.prefill()) ids.push_back(first_token_id(item));
        outputs.push_back(output_json(
            text, ids, meta_info(item, random_id(), reported, done.cached_tokens, started, true)));
        metrics_.finished(item.prompt_tokens, reported, done.cached_tokens);
        // A prefill's half ends with the one token it computed: its time to that token.
        if (args_.prefill())
            metrics_.latencies_observed(std::chrono::duration<double>(Clock::now() - started).count(), 0, 0);
    }
    reply_ordered(res, 200, request->batched ? outputs : outputs[0]);
}

// "stream": true, as SGLang answers it (python/sglang/srt/entrypoints/http_server.py): 200 and
// text/event-stream at once, then one `data: {json}` event per output token, `data: {"error": ...}`
// if the request fails, and `data: [DONE]`. By default every event carries the text and the
// output_ids so far (the tokenizer manager's cumulative mode), so an event grows with the answer;
// with --incremental-streaming-output only what this token added. A batch's events carry "index".
void ApiServer::stream(std::shared_ptr<const GenerateRequest> request, httplib::Response& res) {
    res.status = 200;
    res.set_chunked_content_provider(
        "text/event-stream", [this, request](std::size_t, httplib::DataSink& sink) {
            ServingMetrics::Running running(metrics_);
            auto send = [&sink](const ordered& event) {
                const std::string line = "data: " + event.dump() + "\n\n";
                return sink.write(line.data(), line.size());
            };
            const bool incremental = args_.incremental_streaming_output;
            bool listening = true;
            for (std::size_t index = 0; index < request->items.size() && listening; ++index) {
                const GenerateItem& item = request->items[index];
                const auto started = Clock::now();
                const int planned = output_tokens(item);
                const std::string id = random_id();  // one request id for all its chunks
                WordStream words(item.prompt);
                std::string text;
                ordered ids = ordered::array();
                // Known before the first token: the prefill's cache hit (or the decode's copy of it).
                int cached = 0;
                auto event_of = [&](std::string_view chunk_text, const ordered& chunk_ids, int completion,
                                    bool finished) {
                    ordered event = output_json(chunk_text, chunk_ids,
                                                meta_info(item, id, completion, cached, started, finished));
                    if (request->batched) event["index"] = index;
                    return event;
                };
                std::optional<Clock::time_point> first_token;
                auto served = serve_item(context_, item, [&](int n, int cached_tokens) {
                    if (n == 1) first_token = Clock::now();
                    cached = cached_tokens;
                    std::string delta = n == 1 ? "" : " ";
                    delta += words.next();
                    text += delta;
                    ids.push_back(words.last_id());
                    const bool finished = n == planned;
                    listening = incremental ? send(event_of(delta, ordered::array({ids.back()}), n, finished))
                                            : send(event_of(text, ids, n, finished));
                    return listening;
                });
                if (const auto* failure = std::get_if<GenerateFailure>(&served)) {
                    ordered error = {{"error", {{"message", failure->message}}}};
                    if (request->batched) error["index"] = index;
                    listening = send(error);
                    continue;
                }
                const ServedItem done = std::get<ServedItem>(served);
                if (args_.prefill()) {
                    cached = done.cached_tokens;
                    listening = send(event_of("", ordered::array({first_token_id(item)}), 1, true));
                }
                metrics_.finished(item.prompt_tokens, args_.prefill() ? 1 : done.output_tokens,
                                  done.cached_tokens);
                // The decode streams the tokens: its TTFT and ITL are the request's. A prefill's half
                // ends with the one token it computed: its time to that token.
                if (args_.prefill()) {
                    metrics_.latencies_observed(std::chrono::duration<double>(Clock::now() - started).count(),
                                                0, 0);
                } else if (first_token) {
                    const auto end = Clock::now();
                    metrics_.latencies_observed(std::chrono::duration<double>(*first_token - started).count(),
                                                std::chrono::duration<double>(end - *first_token).count(),
                                                std::max(0, done.output_tokens - 1));
                }
            }
            if (listening) {
                const std::string done = "data: [DONE]\n\n";
                sink.write(done.data(), done.size());
            }
            sink.done();
            return true;
        });
}

// /flush_cache (GET or POST), as SGLang's http_server.py and Scheduler.flush_cache: the tree is reset
// only when no request is running or waiting; the answer's text is the same either way, its status
// says which (200, or 400 while requests are in flight), and the scheduler's log line says why.
void ApiServer::flush_cache(httplib::Response& res) {
    const int running = metrics_.running();
    const int queued = capacity_.queued();
    const bool idle = running == 0;
    if (idle) {
        cache_.flush();
        log_sched(args_.tp_rank(), "Cache flushed successfully!");
    } else {
        log_schedf(args_.tp_rank(),
                   "Cache not flushed because there are pending requests. #queue-req: {}, #running-req: {}",
                   queued, running - queued);
    }
    reply_text(
        res, idle ? 200 : 400,
        "Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting "
        "requests, the operation will not be performed.)\n");
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

    auto flush_cache = [this](const httplib::Request&, httplib::Response& res) { this->flush_cache(res); };
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

// A simulated `python3 -m sglang_router.launch_router --pd-disaggregation`: the Rust router by
// default, the Python MiniLB with --mini-lb. It dispatches each request to a prefill and a decode
// at once with injected bootstrap fields and returns the decode's answer, as both routers do.

#include <fmt/format.h>

#include <atomic>
#include <future>
#include <memory>

#include "sim/args.hpp"
#include "sim/http_util.hpp"
#include "sim/log.hpp"
#include "sim/phases.hpp"
#include "sim/program_args.hpp"
#include "sim/programs.hpp"
#include "sim/router_metrics.hpp"
#include "sim/router_workers.hpp"
#include "sim/sglang_api.hpp"

namespace pdsim {
namespace {

using json = nlohmann::json;

struct Reply {
    int status = 0;  // 0: no response (connection error)
    std::string body;
    std::string error;
};

class Router {
  public:
    Router(RouterArgs args, const Knobs& knobs, const std::string& unregistered)
        : args_(std::move(args)), knobs_(knobs), pool_(args_, unregistered, knobs.router_drain) {
        setup_routes();
    }

    [[noreturn]] void run() {
        if (args_.mini_lb) {
            log_main("MiniLB is only for debugging purposes, it only supports random policy!");
        } else {
            log_mainf("Starting router on {}:{} | mode: {} | policy: {}", args_.host, args_.port, mode_text(),
                      args_.policy);
        }
        if (knobs_.crash.hits(Phase::kInit, 0)) {
            log_main("Error: router failed to start: pdsim injected crash at init");
            exit_now(1);
        }
        if (knobs_.hang.hits(Phase::kInit, 0)) idle_forever();  // never binds: the gate must time out
        std::string error;
        if (!serve_in_background(server_, args_.host, args_.port, error, serving_threads())) {
            log_mainf("ERROR:    [Errno 98] error while attempting to bind on address ('{}', {}): {}",
                      args_.host, args_.port, error);
            exit_now(1);
        }
        if (args_.mini_lb) {
            log_mainf("INFO:     Uvicorn running on http://{}:{} (Press CTRL+C to quit)", args_.host,
                      args_.port);
        }
        if (!args_.mini_lb) serve_metrics();
        pool_.start_health_checks(knobs_.router_check, args_.health_check_endpoint,
                                  Millis{static_cast<long>(args_.worker_startup_timeout_secs) * 1000});
        idle_forever();
    }

  private:
    // SMG and the Rust router serve Prometheus on their own listener; one that cannot bind is logged
    // and the router serves on without it, as upstream's does.
    void serve_metrics() {
        metrics_server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
            res.set_content(router_metrics_text(pool_, args_.smg, requests_.load()),
                            "text/plain; version=0.0.4");
        });
        const auto host = args_.prometheus_host.empty() ? args_.host : args_.prometheus_host;
        std::string error;
        if (!serve_in_background(metrics_server_, host, args_.prometheus_port, error, 2)) {
            log_mainf("Failed to start Prometheus metrics server on {}:{}: {}", host, args_.prometheus_port,
                      error);
            return;
        }
        log_mainf("Metrics server listening on {}:{} (/metrics)", host, args_.prometheus_port);
    }

    std::string mode_text() const {
        std::string prefill;
        for (const auto& worker : pool_.prefill()) {
            prefill += fmt::format(
                "{}(\"{}\", {})", prefill.empty() ? "" : ", ", worker->url,
                worker->bootstrap_port ? fmt::format("Some({})", *worker->bootstrap_port) : "None");
        }
        std::string decode;
        for (const auto& worker : pool_.decode()) {
            decode += fmt::format("{}\"{}\"", decode.empty() ? "" : ", ", worker->url);
        }
        return fmt::format("PrefillDecode {{ prefill_urls: [{}], decode_urls: [{}] }}", prefill, decode);
    }

    Reply call(const Worker& worker, const std::string& method, const std::string& path,
               const std::string& body) {
        auto client = make_client(worker.address.host, worker.address.port, Millis{2000},
                                  Millis{static_cast<long>(args_.request_timeout_secs) * 1000});
        auto result = method == "POST" ? client->Post(path, body, "application/json") : client->Get(path);
        if (!result) {
            return {0, "", describe_failure(result, worker.address.host, worker.address.port)};
        }
        return {result->status, result->body, ""};
    }

    // The MiniLB picks at random among all workers; the Rust router only among healthy ones.
    std::shared_ptr<Worker> pick(const WorkerList& workers) { return pool_.pick(workers, !args_.mini_lb); }

    void generate(const httplib::Request& req, httplib::Response& res) {
        ++requests_;
        json body = json::parse(req.body, nullptr, false);
        if (!body.is_object()) {
            reply_json(res, 400, {{"error", "Invalid JSON body"}});
            return;
        }
        const auto prefill = pick(pool_.prefill());
        const auto decode = pick(pool_.decode());
        if (prefill == nullptr || decode == nullptr) {
            reply_json(res, 503,
                       {{"error", fmt::format("No available {} workers (all circuits open or unhealthy)",
                                              prefill == nullptr ? "prefill" : "decode")}});
            return;
        }
        inject_bootstrap(body, *prefill);
        const std::string payload = body.dump();
        if (body.value("stream", false)) {
            stream(prefill, decode, req.path, payload, res);
            return;
        }
        auto prefill_reply =
            std::async(std::launch::async, [&] { return call(*prefill, "POST", req.path, payload); });
        Reply decode_reply = call(*decode, "POST", req.path, payload);
        Reply prefill_result = prefill_reply.get();
        if (prefill_result.status == 0) {
            log_mainf("Prefill worker {} request failed: {}", prefill->url, prefill_result.error);
        }
        if (decode_reply.status == 0) {
            reply_json(res, 502,
                       {{"error", fmt::format("Failed to send request to decode worker {}: {}", decode->url,
                                              decode_reply.error)}});
            return;
        }
        res.status = decode_reply.status;
        res.set_content(decode_reply.body, "application/json");
    }

    // A streamed request, as MiniLB relays it: 200 and text/event-stream at once, then the decode's
    // bytes as they come (the prefill's answer is awaited and dropped); a decode that cannot be reached
    // ends the stream with an error event.
    void stream(std::shared_ptr<Worker> prefill, std::shared_ptr<Worker> decode, std::string path,
                std::string payload, httplib::Response& res) {
        res.status = 200;
        res.set_chunked_content_provider("text/event-stream", [this, prefill, decode, path, payload](
                                                                  std::size_t, httplib::DataSink& sink) {
            auto prefill_reply =
                std::async(std::launch::async, [&] { return call(*prefill, "POST", path, payload); });
            bool listening = true;
            httplib::Request request;
            request.method = "POST";
            request.path = path;
            request.body = payload;
            request.set_header("Content-Type", "application/json");
            request.content_receiver = [&](const char* data, std::size_t length, std::uint64_t,
                                           std::uint64_t) {
                listening = sink.write(data, length);
                return listening;
            };
            auto client = make_client(decode->address.host, decode->address.port, Millis{2000},
                                      Millis{static_cast<long>(args_.request_timeout_secs) * 1000});
            httplib::Response response;
            httplib::Error error = httplib::Error::Success;
            if (!client->send(request, response, error) && listening) {
                const std::string cause = describe_failure(httplib::Result(nullptr, error),
                                                           decode->address.host, decode->address.port);
                const std::string event =
                    "data: " +
                    json{{"error",
                          {{"message", fmt::format("Failed to send request to decode worker {}: {}",
                                                   decode->url, cause)}}}}
                        .dump() +
                    "\n\ndata: [DONE]\n\n";
                sink.write(event.data(), event.size());
            }
            if (Reply prefill_result = prefill_reply.get(); prefill_result.status == 0) {
                log_mainf("Prefill worker {} request failed: {}", prefill->url, prefill_result.error);
            }
            sink.done();
            return true;
        });
    }

    void inject_bootstrap(json& body, const Worker& prefill) {
        const json port = prefill.bootstrap_port ? json(*prefill.bootstrap_port) : json(nullptr);
        const json* text = body.contains("text") ? &body["text"] : nullptr;
        const json* ids = body.contains("input_ids") ? &body["input_ids"] : nullptr;
        std::size_t batch = 0;
        if (text != nullptr && text->is_array()) {
            batch = text->size();
        } else if (ids != nullptr && ids->is_array() && !ids->empty() && (*ids)[0].is_array()) {
            batch = ids->size();
        }
        if (batch == 0) {
            body["bootstrap_host"] = prefill.address.host_literal;
            body["bootstrap_port"] = port;
            body["bootstrap_room"] = pool_.random_room();
            return;
        }
        body["bootstrap_host"] = json::array();
        body["bootstrap_port"] = json::array();
        body["bootstrap_room"] = json::array();
        for (std::size_t i = 0; i < batch; ++i) {
            body["bootstrap_host"].push_back(prefill.address.host_literal);
            body["bootstrap_port"].push_back(port);
            body["bootstrap_room"].push_back(pool_.random_room());
        }
    }

    void health_generate(httplib::Response& res) {
        WorkerList targets;
        if (args_.mini_lb) {
            // MiniLB asks every worker and ignores their status codes: only a failed call counts.
            targets = pool_.all();
        } else {
            const auto prefill = pool_.pick(pool_.prefill(), true);
            const auto decode = pool_.pick(pool_.decode(), true);
            targets = {prefill != nullptr ? prefill : pool_.pick(pool_.prefill(), false),
                       decode != nullptr ? decode : pool_.pick(pool_.decode(), false)};
        }
        std::vector<std::future<Reply>> replies;
        for (const auto& worker : targets) {
            if (worker == nullptr) {
                reply_json(res, 503, {{"error", "No prefill or decode worker to check"}});
                return;
            }
            replies.push_back(std::async(
                std::launch::async, [this, worker] { return call(*worker, "GET", "/health_generate", ""); }));
        }
        json errors = json::array();
        for (std::size_t i = 0; i < replies.size(); ++i) {
            Reply reply = replies[i].get();
            if (reply.status == 0) {
                errors.push_back(
                    fmt::format("{} worker {}: {}", targets[i]->role_name(), targets[i]->url, reply.error));
            } else if (!args_.mini_lb && reply.status != 200) {
                errors.push_back(fmt::format("{} worker {}: HTTP {}", targets[i]->role_name(),
                                             targets[i]->url, reply.status));
            }
        }
        if (!errors.empty()) {
            reply_json(res, args_.mini_lb ? 500 : 503,
                       {{"error", "Health generate failed"}, {"details", errors}});
            return;
        }
        reply_text(res, 200, "OK");
    }

    void proxy_to_first_prefill(const httplib::Request& req, httplib::Response& res) {
        const auto prefills = pool_.prefill();
        if (prefills.empty()) {
            reply_json(res, 503, {{"error", "No prefill workers"}});
            return;
        }
        const Worker& worker = *prefills.front();
        Reply reply = call(worker, "GET", req.path, "");
        if (reply.status == 0) {
            reply_json(
                res, 502,
                {{"error", fmt::format("Failed to reach prefill worker {}: {}", worker.url, reply.error)}});
            return;
        }
        res.status = reply.status;
        res.set_content(reply.body, "application/json");
    }

    // 200 with >= 1 ready prefill and >= 1 ready decode, else 503 (pending workers count as not healthy).
    void readiness(httplib::Response& res) {
        const int prefill = pool_.healthy_count(Worker::Role::kPrefill);
        const int decode = pool_.healthy_count(Worker::Role::kDecode);
        if (prefill > 0 && decode > 0) {
            const int total = pool_.registered_count();
            reply_json(
                res, 200,
                {{"status", "ready"}, {"healthy_workers", prefill + decode}, {"total_workers", total}});
        } else {
            reply_json(res, 503, {{"status", "not ready"}, {"reason", "insufficient healthy workers"}});
        }
    }

    // One worker as SMG and the gateway list it: id, url, worker_type, is_healthy (== status ready),
    // status, bootstrap_port for prefills; the Rust router of sglang's tree has no status field.
    json worker_json(const Worker& worker) const {
        json entry = {{"id", worker.id},
                      {"url", worker.url},
                      {"worker_type", worker.role_name()},
                      {"connection_mode", "http"},
                      {"is_healthy", worker.state == Worker::State::kReady}};
        if (args_.smg) entry["status"] = worker.state_name();
        if (worker.bootstrap_port) entry["bootstrap_port"] = *worker.bootstrap_port;
        return entry;
    }

    void workers(httplib::Response& res) {
        json workers = json::array();
        int prefill_count = 0;
        int decode_count = 0;
        for (const auto& worker : pool_.all()) {
            if (!worker->registered) continue;
            (worker->role == Worker::Role::kPrefill ? prefill_count : decode_count) += 1;
            workers.push_back(worker_json(*worker));
        }
        reply_json(
            res, 200,
            {{"workers", workers},
             {"total", workers.size()},
             {"stats",
              {{"prefill_count", prefill_count}, {"decode_count", decode_count}, {"regular_count", 0}}}});
    }

    static void reply_error(httplib::Response& res, int status, const char* code,
                            const std::string& message) {
        reply_json(res, status, {{"error", {{"code", code}, {"message", message}}}});
    }

    // POST /workers {url, worker_type, bootstrap_port}: registration is queued (202); the worker is
    // pending until its first health check passes.
    void add_worker(const httplib::Request& req, httplib::Response& res) {
        json body = json::parse(req.body, nullptr, false);
        if (!body.is_object() || !body.contains("url") || !body["url"].is_string()) {
            reply_error(res, 400, "BAD_REQUEST", "body must be a JSON object with a url");
            return;
        }
        const std::string type = body.value("worker_type", "regular");
        if (type != "prefill" && type != "decode") {
            reply_error(res, 400, "BAD_REQUEST",
                        fmt::format("worker_type '{}' cannot join a PD router (prefill or decode)", type));
            return;
        }
        std::optional<int> bootstrap_port;
        if (type == "prefill" && body.contains("bootstrap_port") &&
            body["bootstrap_port"].is_number_integer())
            bootstrap_port = body["bootstrap_port"].get<int>();
        std::shared_ptr<Worker> added;
        try {
            added = pool_.add(type == "prefill" ? Worker::Role::kPrefill : Worker::Role::kDecode,
                              body["url"].get<std::string>(), bootstrap_port);
        } catch (const UsageError& e) {
            reply_error(res, 400, "BAD_REQUEST", e.what());
            return;
        }
        if (!added) {
            reply_error(res, 409, "WORKER_ALREADY_EXISTS",
                        fmt::format("Worker {} already exists", body["url"].get<std::string>()));
            return;
        }
        log_mainf("Worker {} ({}) added", added->url, added->role_name());
        reply_json(res, 202,
                   {{"status", "accepted"},
                    {"worker_id", added->id},
                    {"url", added->url},
                    {"location", "/workers/" + added->id}});
    }

    void one_worker(const httplib::Request& req, httplib::Response& res) {
        const auto worker = pool_.find(std::string(req.matches[1]));
        if (!worker) {
            reply_error(res, 404, "WORKER_NOT_FOUND", "Worker not found");
            return;
        }
        reply_json(res, 200, worker_json(*worker));
    }

    // DELETE /workers/{id}: the worker drains (no new requests) and is removed after the settle time.
    void delete_worker(const httplib::Request& req, httplib::Response& res) {
        const auto worker = pool_.remove(std::string(req.matches[1]));
        if (!worker) {
            reply_error(res, 404, "WORKER_NOT_FOUND", "Worker not found");
            return;
        }
        reply_json(res, 202, {{"status", "accepted"}, {"worker_id", worker->id}, {"url", worker->url}});
    }

    // POST /flush_cache: every prefill and decode is asked at once. MiniLB (mini_lb.py) awaits them
    // and answers 200 with no body whatever they said; the Rust router (pd_router.rs) and SMG answer
    // 200 "Cache flushed on all servers" only if every worker answered 2xx, else 500.
    void flush_cache(httplib::Response& res) {
        std::vector<std::future<Reply>> replies;
        for (const auto& worker : pool_.all()) {
            replies.push_back(std::async(
                std::launch::async, [this, worker] { return call(*worker, "POST", "/flush_cache", ""); }));
        }
        bool all_ok = true;
        for (auto& reply : replies) {
            const Reply answer = reply.get();
            all_ok = all_ok && answer.status >= 200 && answer.status < 300;
        }
        if (args_.mini_lb) {
            res.status = 200;
        } else if (all_ok) {
            reply_text(res, 200, "Cache flushed on all servers");
        } else {
            reply_text(res, 500, "Cache flush failed on one or more servers");
        }
    }

    void setup_routes() {
        use_fastapi_not_found(server_);
        auto alive = [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, "OK"); };
        server_.Get("/health", alive);
        server_.Get("/liveness", alive);
        // MiniLB serves neither /readiness nor /workers: its worker list is fixed at launch.
        if (!args_.mini_lb) {
            server_.Get("/readiness",
                        [this](const httplib::Request&, httplib::Response& res) { readiness(res); });
            server_.Get("/workers",
                        [this](const httplib::Request&, httplib::Response& res) { workers(res); });
            server_.Post("/workers", [this](const httplib::Request& req, httplib::Response& res) {
                add_worker(req, res);
            });
            server_.Get(R"(/workers/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
                one_worker(req, res);
            });
            server_.Delete(R"(/workers/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
                delete_worker(req, res);
            });
        }
        server_.Get("/health_generate",
                    [this](const httplib::Request&, httplib::Response& res) { health_generate(res); });
        auto generate_route = [this](const httplib::Request& req, httplib::Response& res) {
            generate(req, res);
        };
        server_.Post("/generate", generate_route);
        server_.Post("/flush_cache",
                     [this](const httplib::Request&, httplib::Response& res) { flush_cache(res); });
        // Both routers route only POST here; FastAPI (MiniLB) names the refusal, axum sends none.
        server_.Get("/flush_cache", [this](const httplib::Request&, httplib::Response& res) {
            if (args_.mini_lb) {
                reply_json(res, 405, {{"detail", "Method Not Allowed"}});
            } else {
                res.status = 405;
            }
        });
        auto proxy = [this](const httplib::Request& req, httplib::Response& res) {
            proxy_to_first_prefill(req, res);
        };
        for (const char* path : {"/v1/models", "/get_model_info", "/model_info"}) {
            server_.Get(path, proxy);
        }
    }

    RouterArgs args_;
    Knobs knobs_;
    WorkerPool pool_;
    httplib::Server server_;
    httplib::Server metrics_server_;
    std::atomic<std::uint64_t> requests_{0};
};

}  // namespace

void run_router(std::span<const std::string> argv, bool smg) {
    RouterArgs args = parse_router_args(argv);
    args.smg = smg;
    if (!args.pd_disaggregation) {
        throw UsageError("pdsim simulates the PD router only: pass --pd-disaggregation");
    }
    if (smg && args.mini_lb) throw UsageError("smg has no --mini-lb (MiniLB is SGLang's Python router)");
    Knobs knobs = load_knobs();
    const char* unregistered = std::getenv("PDSIM_ROUTER_UNREGISTERED");
    Router router(std::move(args), knobs, unregistered ? unregistered : "");
    router.run();
}

}  // namespace pdsim

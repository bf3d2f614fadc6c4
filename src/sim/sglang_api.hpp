#pragma once
// The HTTP servers of a simulated SGLang node: the real API on node-rank 0, and the dummy health
// server that ranks >= 1 open on the same --host:--port once their schedulers are ready.

#include <httplib.h>

#include <atomic>
#include <memory>
#include <string>

#include "sim/capacity.hpp"
#include "sim/generate.hpp"
#include "sim/program_args.hpp"
#include "sim/prompt_cache.hpp"
#include "sim/scheduler_log.hpp"
#include "sim/serving_metrics.hpp"

namespace pdsim {

class ApiServer {
  public:
    // `capacity`: how fast this server serves (sim/capacity.hpp). `health_fault` and `health_delay`:
    // Knobs::health_fault ("slow" or "500"; "garbage" never gets here).
    ApiServer(GenerateContext context, const CapacityKnobs& capacity, std::string health_fault = {},
              Millis health_delay = Millis{0});
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    // Binds --host:--port: before this the port refuses connections, as while a real server loads.
    bool start(std::string& error);
    // Warm-up succeeded: /health and /health_generate turn from 503 to 200.
    void mark_up() { up_ = true; }

  private:
    void setup_routes();
    void generate(const httplib::Request& req, httplib::Response& res);
    void stream(std::shared_ptr<const GenerateRequest> request, httplib::Response& res);
    void flush_cache(httplib::Response& res);

    GenerateContext context_;
    const ServerArgs& args_;
    httplib::Server server_;
    std::atomic<bool> up_{false};
    Capacity capacity_;
    ServingMetrics metrics_;
    PromptCache cache_;
    SchedulerLog scheduler_;
    std::string health_fault_;
    Millis health_delay_;
};

// PDSIM_HEALTH_FAULT=garbage: listens on host:port and answers every connection with an SSH banner
// instead of HTTP, from a background thread. false (and `error`) when the port cannot be bound.
bool serve_garbage(const std::string& host, int port, std::string& error);

// What a node-rank >= 1 serves on --port (launch_dummy_health_check_server): /health, /health_generate
// and /ping, and /metrics only with --enable-metrics, as upstream adds its Prometheus middleware.
class DummyHealthServer {
  public:
    explicit DummyHealthServer(bool enable_metrics);
    bool start(const std::string& host, int port, std::string& error);

  private:
    httplib::Server server_;
};

// FastAPI's body for an unknown route, so 404s look like the real servers'.
void use_fastapi_not_found(httplib::Server& server);

}  // namespace pdsim

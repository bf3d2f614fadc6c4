#pragma once
// The HTTP servers of a simulated SGLang node: the real API on node-rank 0, and the dummy health
// server that ranks >= 1 open on the same --host:--port once their schedulers are ready.

#include <httplib.h>

#include <atomic>
#include <string>

#include "sim/generate.hpp"
#include "sim/program_args.hpp"

namespace pdsim {

class ApiServer {
  public:
    explicit ApiServer(GenerateContext context);
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    // Binds --host:--port: before this the port refuses connections, as while a real server loads.
    bool start(std::string& error);
    // Warm-up succeeded: /health and /health_generate turn from 503 to 200.
    void mark_up() { up_ = true; }

  private:
    void setup_routes();

    GenerateContext context_;
    const ServerArgs& args_;
    httplib::Server server_;
    std::atomic<bool> up_{false};
};

class DummyHealthServer {
  public:
    DummyHealthServer();
    bool start(const std::string& host, int port, std::string& error);

  private:
    httplib::Server server_;
};

// FastAPI's body for an unknown route, so 404s look like the real servers'.
void use_fastapi_not_found(httplib::Server& server);

}  // namespace pdsim

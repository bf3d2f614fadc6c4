#pragma once
// The prefill bootstrap server (SGLang's CommonKVBootstrapServer): started by prefill node-rank
// 0 early in start-up, on --host:--disaggregation-bootstrap-port. Prefill ranks register with
// PUT /route; decode looks the prefill up with GET /route. pdsim adds PUT/GET /kv?room=N[&wait_ms=W],
// which stands in for the KV transfer itself: prefill records a room, decode waits for it.
// Each server has an instance id, handed out with GET /route: a decode that keeps the id of the prefill
// it first reached and asks /kv with it finds out when that prefill restarted (sglang #16903: the
// decode's connections to it are stale and stay broken until the decode restarts).

#include <httplib.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pdsim {

struct PrefillParallelInfo {
    int tp_size = 1;
    int dp_size = 1;
    int pp_size = 1;
};

class BootstrapServer {
  public:
    explicit BootstrapServer(PrefillParallelInfo info);
    const std::string& instance() const { return instance_; }
    BootstrapServer(const BootstrapServer&) = delete;
    BootstrapServer& operator=(const BootstrapServer&) = delete;

    bool start(const std::string& host, int port, std::string& error);

    // What PUT /kv?room=N does; the prefill HTTP API runs in the same process and calls it directly.
    void record_room(std::uint64_t room, nlohmann::json meta);

  private:
    void setup_routes();
    void handle_route_get(const httplib::Request& req, httplib::Response& res);

    PrefillParallelInfo info_;
    std::string instance_;  // random per process: a restarted prefill has a new one
    httplib::Server server_;
    std::mutex mutex_;
    std::map<int, nlohmann::json> ranks_;  // engine_rank -> registration
    std::map<std::uint64_t, nlohmann::json> rooms_;
    std::condition_variable room_recorded_;
    std::deque<std::uint64_t> room_order_;  // oldest first, to bound memory
};

// PUT /route of one prefill rank, 5 attempts with backoff from 1 s (capped at 30 s), like
// SGLang's register_to_bootstrap. Returns the last error, or nullopt once registered.
std::optional<std::string> register_to_bootstrap(const std::string& host, int port,
                                                 const nlohmann::json& rank);

}  // namespace pdsim

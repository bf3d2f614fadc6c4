#pragma once
// A router's run-time worker API, as SMG and the sglang gateway serve it: GET /workers lists the
// workers with an id each, POST /workers {url, worker_type, bootstrap_port} queues an addition (202),
// DELETE /workers/{id} queues a removal (202: the worker drains, then leaves the list). Everything is
// asynchronous, so callers poll list() for the outcome. MiniLB has none of it.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/health/http_prober.hpp"

namespace pdctl::health {

struct ListedWorker {
    std::string id;
    std::string url;     // without a trailing slash
    std::string type;    // prefill, decode, regular
    std::string status;  // SMG: pending, ready, not_ready, failed, draining; "" where not reported
    bool healthy = false;
};

// The workers of a GET /workers body; nullopt, with `error` saying why, when it is not such a list.
std::optional<std::vector<ListedWorker>> parse_worker_list(const std::string& body, std::string& error);

// The worker listed under `url` (trailing slashes ignored), or null.
const ListedWorker* find_worker(const std::vector<ListedWorker>& workers, const std::string& url);

class RouterWorkerApi {
  public:
    // `base_url`: http://address:port of the router.
    RouterWorkerApi(HttpProber& prober, const std::string& base_url, std::chrono::milliseconds timeout);

    std::optional<std::vector<ListedWorker>> list(std::string& error);
    // Each returns "" once the router accepted the request, else what it answered. Removing a worker
    // it no longer lists (404) and adding one it lists already (409) count as accepted.
    std::string remove(const std::string& id);
    std::string add(const std::string& url, const std::string& type, std::optional<int> bootstrap_port);

  private:
    HttpProber& prober_;
    std::string base_url_;
    std::chrono::milliseconds timeout_;
};

}  // namespace pdctl::health

// A simulated `mooncake_master`: the RPC port (a TCP listener; nothing in PD speaks to it), the
// always-on HTTP admin/metrics server, and optionally the HTTP metadata server.

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <thread>

#include "sim/http_util.hpp"
#include "sim/log.hpp"
#include "sim/net.hpp"
#include "sim/phases.hpp"
#include "sim/program_args.hpp"
#include "sim/programs.hpp"

namespace pdsim {
namespace {

constexpr std::string_view kFile = "master.cpp";

[[noreturn]] void fatal(std::string_view message) {
    log_glog('E', kFile, message);
    exit_now(1);
}

// GET /health on the metrics port. Recent masters (0.3.10.post2 on, master_admin_service.cpp) answer
// 200 with JSON whose service_ready is false until the master serves, "status" staying "ok"
// throughout; older ones a plain "OK".
void setup_health_route(httplib::Server& server, const Knobs& knobs) {
    if (knobs.master_plain_health) {
        server.Get("/health",
                   [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, "OK"); });
        return;
    }
    const auto serving_at = std::chrono::steady_clock::now() + knobs.master_ready;
    server.Get("/health", [serving_at](const httplib::Request&, httplib::Response& res) {
        const bool ready = std::chrono::steady_clock::now() >= serving_at;
        reply_json(res, 200,
                   {{"status", "ok"},
                    {"role", "leader"},
                    {"ha_state", ready ? "serving" : "starting"},
                    {"service_ready", ready}});
    });
}

void setup_metrics_routes(httplib::Server& server) {
    server.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
        reply_text(res, 200,
                   "# HELP master_allocated_bytes Total bytes currently allocated across all segments\n"
                   "# TYPE master_allocated_bytes gauge\n"
                   "master_allocated_bytes 0\n"
                   "# HELP master_total_capacity_bytes Total capacity across all mounted segments\n"
                   "# TYPE master_total_capacity_bytes gauge\n"
                   "master_total_capacity_bytes 0\n"
                   "# HELP master_key_count Total number of keys managed by the master\n"
                   "# TYPE master_key_count gauge\n"
                   "master_key_count 0\n"
                   "# HELP master_active_clients Number of clients with a live lease\n"
                   "# TYPE master_active_clients gauge\n"
                   "master_active_clients 0\n");
    });
    server.Get("/metrics/summary", [](const httplib::Request&, httplib::Response& res) {
        reply_text(res, 200,
                   "Mooncake Master Metrics Summary\n"
                   "Storage: 0 B / 0 B (0.0%)\n"
                   "Keys: 0, Active clients: 0\n"
                   "Requests (Success/Total): PutStart=0/0, GetReplicaList=0/0, Remove=0/0\n");
    });
    // Empty while no client has mounted a segment, which is always the case under pdsim.
    server.Get("/get_all_segments",
               [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, ""); });
    server.Get("/get_all_keys",
               [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, ""); });
}

// The embedded etcd replacement: GET/PUT/DELETE /metadata?key=K.
class MetadataStore {
  public:
    void setup_routes(httplib::Server& server) {
        server.Get("/health",
                   [](const httplib::Request&, httplib::Response& res) { reply_text(res, 200, "OK"); });
        server.Get("/metadata", [this](const httplib::Request& req, httplib::Response& res) {
            std::lock_guard lock(mutex_);
            auto it = values_.find(req.get_param_value("key"));
            if (it == values_.end()) {
                reply_text(res, 404, "metadata not found");
                return;
            }
            res.set_content(it->second, "application/json");
        });
        server.Put("/metadata", [this](const httplib::Request& req, httplib::Response& res) {
            std::lock_guard lock(mutex_);
            values_[req.get_param_value("key")] = req.body;
            reply_text(res, 200, "metadata updated");
        });
        server.Delete("/metadata", [this](const httplib::Request& req, httplib::Response& res) {
            std::lock_guard lock(mutex_);
            bool erased = values_.erase(req.get_param_value("key")) != 0;
            reply_text(res, erased ? 200 : 404, erased ? "metadata deleted" : "metadata not found");
        });
    }

  private:
    std::mutex mutex_;
    std::map<std::string, std::string> values_;
};

}  // namespace

void run_mooncake_master(std::span<const std::string> argv) {
    MasterArgs args = parse_master_args(argv);
    Knobs knobs = load_knobs();
    log_glog('I', kFile,
             fmt::format("Master config: rpc_address={}, rpc_port={}, metrics_host={}, metrics_port={}, "
                         "enable_http_metadata_server={}",
                         args.rpc_address, args.port, args.metrics_host, args.metrics_port,
                         args.enable_http_metadata_server ? 1 : 0));
    if (knobs.crash.hits(Phase::kInit, 0)) {
        log_glog('F', kFile, "Check failed: master service start: pdsim injected crash at init");
        exit_now(1);
    }
    if (knobs.hang.hits(Phase::kInit, 0)) idle_forever();  // never binds: the gate must time out

    std::string error;
    static Socket rpc;  // lives as long as the process; accepted connections are closed at once
    rpc = listen_tcp(args.rpc_address, args.port, error);
    if (!rpc.valid()) {
        fatal(fmt::format("Failed to start RPC server on {}:{}: {}", args.rpc_address, args.port, error));
    }
    std::thread([] {
        for (;;) {
            Socket conn = accept_for(rpc, Millis{1000});
        }
    }).detach();

    static httplib::Server metrics;
    setup_health_route(metrics, knobs);
    setup_metrics_routes(metrics);
    if (!serve_in_background(metrics, args.metrics_host, args.metrics_port, error)) {
        fatal(fmt::format("Failed to start metrics HTTP server on {}:{}: {}", args.metrics_host,
                          args.metrics_port, error));
    }
    if (args.enable_http_metadata_server) {
        static MetadataStore store;
        static httplib::Server metadata;
        store.setup_routes(metadata);
        if (!serve_in_background(metadata, args.http_metadata_server_host, args.http_metadata_server_port,
                                 error)) {
            fatal(fmt::format("Failed to start HTTP metadata server on {}:{}: {}",
                              args.http_metadata_server_host, args.http_metadata_server_port, error));
        }
        log_glog('I', "http_metadata_server.cpp",
                 fmt::format("HTTP metadata server started on {}:{}", args.http_metadata_server_host,
                             args.http_metadata_server_port));
    }
    log_glog(
        'I', kFile,
        fmt::format("Master service started on port {}, max_threads={}, enable_metric_reporting={}, "
                    "metrics_port={}",
                    args.port, args.max_threads, args.enable_metric_reporting ? 1 : 0, args.metrics_port));
    idle_forever();
}

}  // namespace pdsim

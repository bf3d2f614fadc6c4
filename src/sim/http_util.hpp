#pragma once
// cpp-httplib glue shared by the simulated HTTP servers and their clients.

#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "sim/process.hpp"

namespace pdsim {

// Threads of a server that carries requests under load (the API of node-rank 0, the router, the
// bootstrap server's long polls): each open stream holds one, so 256 concurrent streams need as many
// (httplib's default is 8). PDSIM_HTTP_THREADS overrides it.
std::size_t serving_threads();

// Binds host:port, then serves on a detached thread with `threads` worker threads (0: httplib's
// default). From the moment this returns true, clients can connect (the kernel queues them until
// the thread accepts). On failure `error` holds the cause, e.g. "Address already in use".
bool serve_in_background(httplib::Server& server, const std::string& host, int port, std::string& error,
                         std::size_t threads = 0);

void reply_json(httplib::Response& res, int status, const nlohmann::json& body);
void reply_text(httplib::Response& res, int status, std::string_view body);

// The error body SGLang's HTTP server returns: {"error": {"message", "type", "code"}}.
nlohmann::json error_body(std::string_view message, int code);

// An http:// URL as given on a command line.
struct Url {
    std::string host;          // without IPv6 brackets, for connecting
    std::string host_literal;  // as written (IPv6 bracketed), for bootstrap_host
    int port = 80;
};
std::optional<Url> parse_url(std::string_view text);

std::unique_ptr<httplib::Client> make_client(const std::string& host, int port, Millis connect_timeout,
                                             Millis read_timeout);

// Why a request failed, in words close to what Python's requests would print: for a refused
// connection the socket error ("Connection refused"), not just httplib's category.
std::string describe_failure(const httplib::Result& result, const std::string& host, int port);

}  // namespace pdsim

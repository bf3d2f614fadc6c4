#include "sim/http_util.hpp"

#include <fmt/format.h>
#include <sys/socket.h>

#include <cstdlib>
#include <memory>
#include <thread>

#include "sim/net.hpp"

namespace pdsim {
namespace {

constexpr int kListenBacklog = 2048;  // uvicorn's --backlog default

}  // namespace

std::size_t serving_threads() {
    constexpr std::size_t kDefault = 288;  // 256 streams and room for health checks and metrics
    const char* raw = std::getenv("PDSIM_HTTP_THREADS");
    if (raw == nullptr || *raw == '\0') return kDefault;
    const long value = std::strtol(raw, nullptr, 10);
    return value > 0 ? static_cast<std::size_t>(value) : kDefault;
}

bool serve_in_background(httplib::Server& server, const std::string& host, int port, std::string& error,
                         std::size_t threads) {
    // Uvicorn's asyncio transports set TCP_NODELAY; without it a streamed token waits for the ACK of the
    // one before (Nagle and delayed ACKs: 40 ms), which a load test would measure as the server's ITL.
    server.set_tcp_nodelay(true);
    // Uvicorn keeps a connection open between requests for 5 s, with no cap on their number.
    server.set_keep_alive_max_count(100000);
    server.set_keep_alive_timeout(5);
    // httplib listens with a backlog of 5 (compiled in), uvicorn with 2048: with 5, a burst of new
    // connections overflows the accept queue and each one past it waits a SYN retransmission (1 s).
    // The listening socket is the only one this server creates: keep it, and listen again with more.
    // SO_REUSEADDR only, as asyncio's create_server sets it: httplib's default adds SO_REUSEPORT, with
    // which a second server binds a port another one still listens on, where uvicorn gets Errno 98.
    auto listening = std::make_shared<int>(-1);
    server.set_socket_options([listening](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
        *listening = static_cast<int>(sock);
    });
    if (threads > 0) {
        server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    }
    if (!server.bind_to_port(host, port)) {
        // httplib does not say why; a plain bind on the same address recovers the errno text.
        Socket probe = listen_tcp(host, port, error);
        if (probe.valid()) {
            error = "cannot bind";
        }
        return false;
    }
    if (*listening >= 0) ::listen(*listening, kListenBacklog);
    std::thread([&server] { server.listen_after_bind(); }).detach();
    return true;
}

void reply_json(httplib::Response& res, int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
}

void reply_text(httplib::Response& res, int status, std::string_view body) {
    res.status = status;
    res.set_content(std::string(body), "text/plain; charset=utf-8");
}

nlohmann::json error_body(std::string_view message, int code) {
    std::string_view type = code == 400   ? "BadRequestError"
                            : code == 404 ? "NotFoundError"
                                          : "InternalServerError";
    return {{"error", {{"message", message}, {"type", type}, {"code", code}}}};
}

std::optional<Url> parse_url(std::string_view text) {
    constexpr std::string_view kScheme = "http://";
    if (text.substr(0, kScheme.size()) != kScheme) {
        return std::nullopt;
    }
    std::string_view rest = text.substr(kScheme.size());
    rest = rest.substr(0, rest.find('/'));
    Url url;
    if (auto host_port = split_host_port(rest)) {
        url.host = host_port->host;
        url.port = host_port->port;
        url.host_literal = rest.substr(0, rest.rfind(':'));
    } else if (!rest.empty() && rest.find(':') == std::string_view::npos) {
        url.host = url.host_literal = std::string(rest);
    } else {
        return std::nullopt;
    }
    return url;
}

std::unique_ptr<httplib::Client> make_client(const std::string& host, int port, Millis connect_timeout,
                                             Millis read_timeout) {
    auto client = std::make_unique<httplib::Client>(host, port);
    client->set_tcp_nodelay(true);
    client->set_connection_timeout(connect_timeout);
    client->set_read_timeout(read_timeout);
    client->set_write_timeout(read_timeout);
    return client;
}

std::string describe_failure(const httplib::Result& result, const std::string& host, int port) {
    if (result) {
        return fmt::format("HTTP {}", result->status);
    }
    if (result.error() == httplib::Error::Connection || result.error() == httplib::Error::ConnectionTimeout) {
        std::string cause;
        Socket probe = connect_tcp(host, port, Millis{1000}, cause);
        if (!probe.valid()) {
            return cause;
        }
    }
    return httplib::to_string(result.error());
}

}  // namespace pdsim

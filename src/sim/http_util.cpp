#include "sim/http_util.hpp"

#include <fmt/format.h>

#include <thread>

#include "sim/net.hpp"

namespace pdsim {

bool serve_in_background(httplib::Server& server, const std::string& host, int port, std::string& error) {
    if (!server.bind_to_port(host, port)) {
        // httplib does not say why; a plain bind on the same address recovers the errno text.
        Socket probe = listen_tcp(host, port, error);
        if (probe.valid()) {
            error = "cannot bind";
        }
        return false;
    }
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

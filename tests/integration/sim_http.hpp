#pragma once
// Small HTTP and TCP probes for the pdsim integration tests.

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pdsim_test {

struct HttpReply {
    int status = 0;
    std::string body;

    nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
};

inline httplib::Client client_for(const std::string& host, int port, int read_timeout_s) {
    httplib::Client client(host, port);
    client.set_connection_timeout(1, 0);
    client.set_read_timeout(read_timeout_s, 0);
    return client;
}

// nullopt when the request fails without a response (refused, reset, timed out).
inline std::optional<HttpReply> http_get(const std::string& host, int port, const std::string& path) {
    auto client = client_for(host, port, 5);
    auto result = client.Get(path);
    if (!result) {
        return std::nullopt;
    }
    return HttpReply{result->status, result->body};
}

inline std::optional<HttpReply> http_post(const std::string& host, int port, const std::string& path,
                                          const nlohmann::json& body) {
    auto client = client_for(host, port, 30);
    auto result = client.Post(path, body.dump(), "application/json");
    if (!result) {
        return std::nullopt;
    }
    return HttpReply{result->status, result->body};
}

inline std::optional<HttpReply> http_delete(const std::string& host, int port, const std::string& path) {
    auto client = client_for(host, port, 5);
    auto result = client.Delete(path);
    if (!result) {
        return std::nullopt;
    }
    return HttpReply{result->status, result->body};
}

inline int status_of(const std::string& host, int port, const std::string& path) {
    auto reply = http_get(host, port, path);
    return reply ? reply->status : 0;
}

// True if a TCP connection to host:port is accepted (IPv4 literal hosts only).
inline bool port_open(const std::string& host, int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return false;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

}  // namespace pdsim_test

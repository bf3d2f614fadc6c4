#include "pdctl/health/http_prober.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <optional>

namespace pdctl::health {

bool split_http_url(const std::string& url, std::string& host, int& port, std::string& path) {
    const std::string scheme = "http://";
    if (url.rfind(scheme, 0) != 0) return false;
    const auto rest = url.substr(scheme.size());
    const auto slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    path = slash == std::string::npos ? "/" : rest.substr(slash);
    const auto colon = authority.rfind(':');
    if (colon == std::string::npos || authority.back() == ']') {
        host = authority;
        port = 80;
    } else {
        host = authority.substr(0, colon);
        try {
            port = std::stoi(authority.substr(colon + 1));
        } catch (const std::exception&) {
            return false;
        }
    }
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    return !host.empty() && port > 0 && port < 65536;
}

namespace {

// A client for `url`'s host and port, and its path; none, with the error in `result`, when `url` is not
// http://host:port/path.
std::optional<httplib::Client> client_for(const std::string& url, std::string& path, ProbeResult& result) {
    std::string host;
    int port = 0;
    if (!split_http_url(url, host, port, path)) {
        result.error = "not an http:// URL: " + url;
        return std::nullopt;
    }
    return std::optional<httplib::Client>(std::in_place, host, port);
}

// httplib names its errors in one word ("Connection", "Read"), which reads like a truncated message in
// a gate-timeout report; say what the operator needs to know instead.
std::string describe_error(httplib::Error error, std::chrono::milliseconds timeout) {
    switch (error) {
        case httplib::Error::Connection:
            return "connection refused or unreachable";
        case httplib::Error::Read:
            // A read timeout and bytes that are not HTTP (a wrong port) look the same to httplib.
            return fmt::format("no valid HTTP response within {} ms (timed out, or not HTTP)",
                               timeout.count());
        case httplib::Error::ConnectionTimeout:
            return fmt::format("no connection within {} ms", timeout.count());
        default:
            return httplib::to_string(error);
    }
}

void set_timeouts(httplib::Client& client, std::chrono::milliseconds timeout) {
    const auto seconds = static_cast<time_t>(timeout.count() / 1000);
    const auto micros = static_cast<time_t>((timeout.count() % 1000) * 1000);
    client.set_connection_timeout(seconds, micros);
    client.set_read_timeout(seconds, micros);
    client.set_write_timeout(seconds, micros);
}

// One request with `timeout` for connecting, reading and writing: `send(client, path)` makes it. The
// body is kept up to 64 KiB (a /workers list of ~100 workers).
template <typename Send>
ProbeResult request(const std::string& url, std::chrono::milliseconds timeout, Send send) {
    ProbeResult result;
    std::string path;
    auto client = client_for(url, path, result);
    if (!client) return result;
    set_timeouts(*client, timeout);
    if (auto response = send(*client, path)) {
        result.status = response->status;
        result.body = response->body.substr(0, 1024 * 1024);  // a /metrics page with histograms
    } else {
        result.error = describe_error(response.error(), timeout);
    }
    return result;
}

}  // namespace

ProbeResult RealHttpProber::get(const std::string& url, std::chrono::milliseconds timeout) {
    return request(url, timeout,
                   [](httplib::Client& client, const std::string& path) { return client.Get(path); });
}

ProbeResult RealHttpProber::remove(const std::string& url, std::chrono::milliseconds timeout) {
    return request(url, timeout,
                   [](httplib::Client& client, const std::string& path) { return client.Delete(path); });
}

ProbeResult RealHttpProber::post(const std::string& url, const std::string& body,
                                 const std::string& content_type, const PostTimeouts& timeouts) {
    ProbeResult result;
    std::string path;
    auto client = client_for(url, path, result);
    if (!client) return result;
    client->set_connection_timeout(timeouts.connect);
    client->set_read_timeout(timeouts.read);
    // The write timeout stays httplib's default (5 s): the request is one small JSON document.
    if (auto response = client->Post(path, body, content_type)) {
        result.status = response->status;
        result.body = response->body;
    } else {
        result.error = httplib::to_string(response.error());
    }
    return result;
}

}  // namespace pdctl::health

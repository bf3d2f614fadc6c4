#pragma once
// HTTP to the cluster's servers: the GET of a readiness gate, the POST of `pdctl smoke`, and a
// router's worker API (POST and DELETE /workers) in a rolling restart. The
// interface lets engine tests script answers; the real one uses cpp-httplib, the only place pdctl
// (outside the simulator) speaks HTTP.

#include <chrono>
#include <string>

namespace pdctl::health {

struct ProbeResult {
    int status = 0;     // HTTP status; 0 = no HTTP answer (refused, timeout, DNS, ...)
    std::string body;   // get: the first MiB of the body; post: all of it
    std::string error;  // why there was no answer; empty whenever there was one
    bool ok(int expect) const { return status == expect; }
};

struct PostTimeouts {
    std::chrono::milliseconds connect{std::chrono::seconds(5)};
    std::chrono::milliseconds read{std::chrono::seconds(120)};  // a generation's time
};

class HttpProber {
  public:
    virtual ~HttpProber() = default;
    virtual ProbeResult get(const std::string& url, std::chrono::milliseconds timeout) = 0;
    virtual ProbeResult post(const std::string& url, const std::string& body, const std::string& content_type,
                             const PostTimeouts& timeouts) = 0;
    // DELETE url (a router's /workers/{id}). Only the router worker API uses it; scripted probers that
    // never see one need not implement it.
    virtual ProbeResult remove(const std::string& url, std::chrono::milliseconds /*timeout*/) {
        return {0, "", "DELETE " + url + ": not supported by this prober"};
    }
};

class RealHttpProber : public HttpProber {
  public:
    ProbeResult get(const std::string& url, std::chrono::milliseconds timeout) override;
    // `error` is cpp-httplib's own name for the failure ("Could not establish connection"), as smoke
    // has always printed it; get() words its errors for gate reports instead.
    ProbeResult post(const std::string& url, const std::string& body, const std::string& content_type,
                     const PostTimeouts& timeouts) override;
    ProbeResult remove(const std::string& url, std::chrono::milliseconds timeout) override;
};

// Splits http://host:port/path. Returns false for anything else.
bool split_http_url(const std::string& url, std::string& host, int& port, std::string& path);

}  // namespace pdctl::health

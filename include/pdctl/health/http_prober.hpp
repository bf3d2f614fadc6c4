#pragma once
// One HTTP GET against a readiness URL. The interface lets engine tests script answers; the real one
// uses cpp-httplib.

#include <chrono>
#include <string>

namespace pdctl::health {

struct ProbeResult {
    int status = 0;     // HTTP status; 0 = no HTTP answer (refused, timeout, DNS, ...)
    std::string body;   // first bytes of the body
    std::string error;  // why there was no answer
    bool ok(int expect) const { return status == expect; }
};

class HttpProber {
  public:
    virtual ~HttpProber() = default;
    virtual ProbeResult get(const std::string& url, std::chrono::milliseconds timeout) = 0;
};

class RealHttpProber : public HttpProber {
  public:
    ProbeResult get(const std::string& url, std::chrono::milliseconds timeout) override;
};

// Splits http://host:port/path. Returns false for anything else.
bool split_http_url(const std::string& url, std::string& host, int& port, std::string& path);

}  // namespace pdctl::health

// What pdctl bench's load generator adds to what it measures (docs/benchmarks.md, "The load
// generator"): a fixed-latency SSE endpoint on loopback (first token after --ttft-ms, then one every
// --itl-ms, scheduled on absolute times) measured at 1, 64 and 256 concurrent streams; the excess over
// the configured times is an upper bound on the client's overhead (the server's and the kernel's
// scheduling are in it too). Then the request rate on non-streamed requests, side by side with wrk.
//
//   pdctl_load_bench [--streams 1,64,256] [--ttft-ms 50] [--itl-ms 20] [--tokens 16] [--rounds 4]
//                    [--rate-seconds 10] [--wrk PATH]
#include <fmt/format.h>
#include <httplib.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "pdctl/load/load_runner.hpp"
#include "pdctl/load/row_stats.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Options {
    std::vector<int> streams{1, 64, 256};
    int ttft_ms = 50;
    int itl_ms = 20;
    int tokens = 16;
    int rounds = 4;  // requests per stream at each level
    int rate_seconds = 10;
    std::string wrk = "/usr/bin/wrk";
};

std::vector<int> parse_list(const std::string& text) {
    std::vector<int> values;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        values.push_back(std::stoi(text.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return values;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--streams")
            options.streams = parse_list(value);
        else if (flag == "--ttft-ms")
            options.ttft_ms = std::stoi(value);
        else if (flag == "--itl-ms")
            options.itl_ms = std::stoi(value);
        else if (flag == "--tokens")
            options.tokens = std::stoi(value);
        else if (flag == "--rounds")
            options.rounds = std::stoi(value);
        else if (flag == "--rate-seconds")
            options.rate_seconds = std::stoi(value);
        else if (flag == "--wrk")
            options.wrk = value;
        else
            throw std::runtime_error("unknown flag " + flag);
    }
    return options;
}

// The endpoint: streamed requests get their tokens on a fixed schedule from the moment the handler
// runs; "stream":false gets a one-token JSON answer at once (the request-rate test).
class FixedLatencyServer {
  public:
    FixedLatencyServer(const Options& options) {
        server_.new_task_queue = [] { return new httplib::ThreadPool(320); };
        server_.set_tcp_nodelay(true);
        server_.set_keep_alive_max_count(1000000);
        server_.Post("/generate", [&options](const httplib::Request& request, httplib::Response& response) {
            if (request.body.find("\"stream\":false") != std::string::npos) {
                response.set_content(R"({"text":"x","meta_info":{"completion_tokens":1}})",
                                     "application/json");
                return;
            }
            const auto began = Clock::now();
            response.set_chunked_content_provider(
                "text/event-stream", [&options, began](std::size_t, httplib::DataSink& sink) {
                    for (int n = 1; n <= options.tokens; ++n) {
                        std::this_thread::sleep_until(began + milliseconds(options.ttft_ms) +
                                                      milliseconds(options.itl_ms) * (n - 1));
                        const std::string event = fmt::format(
                            "data: {{\"text\":\"x\",\"meta_info\":{{\"completion_tokens\":{}}}}}\n\n", n);
                        if (!sink.write(event.data(), event.size())) return false;
                    }
                    sink.write("data: [DONE]\n\n", 14);
                    sink.done();
                    return true;
                });
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running()) std::this_thread::sleep_for(milliseconds(1));
    }
    ~FixedLatencyServer() {
        server_.stop();
        thread_.join();
    }
    std::string url() const { return fmt::format("http://127.0.0.1:{}/generate", port_); }

  private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

double thread_cpu_s() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

long max_rss_kb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

void overhead(const Options& options, const std::string& url) {
    fmt::print("### Added latency: fixed endpoint, TTFT {} ms, ITL {} ms, {} tokens\n\n", options.ttft_ms,
               options.itl_ms, options.tokens);
    fmt::print(
        "| streams | requests | failed | TTFT − {} ms p50 / p99 | ITL − {} ms p50 / p99 | client CPU per "
        "request | max RSS |\n",
        options.ttft_ms, options.itl_ms);
    fmt::print("|---|---|---|---|---|---|---|\n");
    for (const int streams : options.streams) {
        pdctl::load::LoadSpec spec;
        spec.url = url;
        spec.input_tokens = 16;
        spec.output_tokens = options.tokens;
        spec.concurrency = streams;
        spec.requests = streams * options.rounds;
        spec.warmup = streams;  // every connection opened before anything is measured
        const double cpu_before = thread_cpu_s();
        const auto result = pdctl::load::run_load(spec, {});
        const double cpu = thread_cpu_s() - cpu_before;
        std::vector<double> ttft_excess, itl_excess;
        int failed = 0;
        for (const auto& record : result.records) {
            if (!record.ok()) {
                ++failed;
                continue;
            }
            ttft_excess.push_back((record.ttft_s - options.ttft_ms / 1e3) * 1e3);
            for (double gap : record.itl_s) itl_excess.push_back((gap - options.itl_ms / 1e3) * 1e3);
        }
        using pdctl::load::percentile;
        fmt::print("| {} | {} | {} | {:.2f} / {:.2f} ms | {:+.2f} / {:+.2f} ms | {:.0f} µs | {} MiB |\n",
                   streams, result.records.size(), failed, percentile(ttft_excess, 50),
                   percentile(ttft_excess, 99), percentile(itl_excess, 50), percentile(itl_excess, 99),
                   cpu / static_cast<double>(spec.requests + spec.warmup) * 1e6, max_rss_kb() / 1024);
        std::fflush(stdout);
    }
}

void request_rate(const Options& options, const std::string& url) {
    fmt::print("\n### Request rate: non-streamed one-token answers, 64 connections, {} s\n\n",
               options.rate_seconds);
    pdctl::load::LoadSpec spec;
    spec.url = url;
    spec.input_tokens = 16;
    spec.output_tokens = 1;
    spec.concurrency = 64;
    spec.duration = std::chrono::seconds(options.rate_seconds);
    spec.warmup = 64;
    spec.stream = false;
    const auto result = pdctl::load::run_load(spec, {});
    int failed = 0;
    for (const auto& record : result.records) failed += record.ok() ? 0 : 1;
    fmt::print("| client | requests/s | failed |\n|---|---|---|\n");
    fmt::print("| pdctl bench (libcurl multi, 1 thread) | {:.0f} | {} |\n",
               static_cast<double>(result.records.size() - failed) / result.duration_s, failed);
    std::fflush(stdout);

    const std::string body =
        "{\"input_ids\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],"
        "\"sampling_params\":{\"max_new_tokens\":1},\"stream\":false}";
    const std::string script = "/tmp/pdctl-load-bench-wrk.lua";
    std::ofstream(script)
        << "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.body = '" << body
        << "'\n";
    const std::string command =
        fmt::format("{} -t2 -c64 -d{}s -s {} {} 2>&1", options.wrk, options.rate_seconds, script, url);
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return;
    std::string output;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    const int status = pclose(pipe);
    const auto at = output.find("Requests/sec:");
    if (status != 0 || at == std::string::npos) {
        fmt::print("| wrk 4.1 (2 threads) | not run: {} | |\n", output.substr(0, 200));
        return;
    }
    fmt::print("| wrk 4.1 (2 threads, non-streaming) | {:.0f} | |\n", std::stod(output.substr(at + 13)));
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse(argc, argv);
        FixedLatencyServer server(options);
        overhead(options, server.url());
        request_rate(options, server.url());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pdctl_load_bench: %s\n", e.what());
        return 2;
    }
}

// What pdctl bench's load generator adds to what it measures (docs/benchmarks.md, "The load
// generator"): a fixed-latency SSE endpoint on loopback (first token after --ttft-ms, then one every
// --itl-ms, scheduled on absolute times) measured at 1, 64 and 256 concurrent streams. The excess over
// the configured times bounds the client's overhead from above, but on two cores the endpoint's own
// lateness is in it too. So the endpoint also records when it wrote each token of each request, and
// every gap the client measured is set against the gap between the two writes: what is left is the
// client's own share (its reading, parsing and scheduling, and the loopback), token by token. The
// endpoint keeps to the last core and the client to the first, as on a cluster they are two machines.
// Then the request rate on non-streamed requests, side by side with wrk.
//
//   pdctl_load_bench [--streams 1,64,256] [--ttft-ms 50] [--itl-ms 20] [--tokens 16] [--rounds 4]
//                    [--rate-seconds 10] [--wrk PATH]
#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pdctl/load/load_runner.hpp"
#include "pdctl/load/request_body.hpp"
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

// The endpoint's threads preempt the client's when a token is due (SCHED_FIFO, when allowed): what is
// left of the excess is the client's and the kernel's. Returns whether it could.
// On a machine of two cores or more the endpoint keeps to the last core and the client to the first:
// the endpoint's 256 threads waking for their tokens would otherwise take the client's core from it,
// which on a real cluster is another machine's.
void pin_to(int cpu) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu < 0 ? static_cast<int>(cpus) - 1 : cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// When the endpoint began each streamed request and wrote each of its tokens, by the request's body
// (each body is different: its input ids follow from the seed and the request's number).
class WriteLog {
  public:
    struct Request {
        Clock::time_point began;
        std::vector<Clock::time_point> writes;
    };
    void add(std::size_t body, Request request) {
        std::lock_guard lock(mutex_);
        requests_[body] = std::move(request);
    }
    std::unordered_map<std::size_t, Request> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(requests_, {});
    }

  private:
    std::mutex mutex_;
    std::unordered_map<std::size_t, Request> requests_;
};

// The endpoint: streamed requests get their tokens on a fixed schedule from the moment the handler
// runs; "stream":false gets a one-token JSON answer at once (the request-rate test).
class FixedLatencyServer {
  public:
    FixedLatencyServer(const Options& options) {
        server_.new_task_queue = [] { return new httplib::ThreadPool(320); };
        server_.set_tcp_nodelay(true);
        server_.set_keep_alive_max_count(1000000);
        server_.Post(
            "/generate", [this, &options](const httplib::Request& request, httplib::Response& response) {
                thread_local const bool pinned = (pin_to(-1), true);
                (void)pinned;
                if (request.body.find("\"stream\":false") != std::string::npos) {
                    response.set_content(R"({"text":"x","meta_info":{"completion_tokens":1}})",
                                         "application/json");
                    return;
                }
                const auto began = Clock::now();
                const std::size_t body = std::hash<std::string>{}(request.body);
                response.set_chunked_content_provider(
                    "text/event-stream", [this, &options, began, body](std::size_t, httplib::DataSink& sink) {
                        WriteLog::Request written{began, {}};
                        for (int n = 1; n <= options.tokens; ++n) {
                            const auto due = began + milliseconds(options.ttft_ms) +
                                             milliseconds(options.itl_ms) * (n - 1);
                            std::this_thread::sleep_until(due);
                            const std::string event = fmt::format(
                                "data: {{\"text\":\"x\",\"meta_info\":{{\"completion_tokens\":{}}}}}\n\n", n);
                            if (!sink.write(event.data(), event.size())) return false;
                            written.writes.push_back(Clock::now());
                        }
                        writes_.add(body, std::move(written));
                        sink.write("data: [DONE]\n\n", 14);
                        sink.done();
                        return true;
                    });
            });
        // httplib listens with a backlog of 5 (compiled in): 256 connections opened at once would
        // overflow it and wait for SYN retransmissions (1 s and more). Listen again with uvicorn's 2048.
        auto listening = std::make_shared<int>(-1);
        server_.set_socket_options([listening](socket_t sock) {
            httplib::default_socket_options(sock);
            *listening = static_cast<int>(sock);
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        if (*listening >= 0) ::listen(*listening, 2048);
        thread_ = std::thread([this] {
            pin_to(-1);
            server_.listen_after_bind();
        });
        while (!server_.is_running()) std::this_thread::sleep_for(milliseconds(1));
    }
    ~FixedLatencyServer() {
        server_.stop();
        thread_.join();
    }
    std::string url() const { return fmt::format("http://127.0.0.1:{}/generate", port_); }
    std::unordered_map<std::size_t, WriteLog::Request> writes() { return writes_.take(); }

  private:
    WriteLog writes_;
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

double ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

void overhead(const Options& options, FixedLatencyServer& server) {
    const std::string url = server.url();
    fmt::print("### Added latency: fixed endpoint, TTFT {} ms, ITL {} ms, {} tokens\n\n", options.ttft_ms,
               options.itl_ms, options.tokens);
    fmt::print(
        "| streams | requests | failed | TTFT − {} ms p50 / p99 | ITL − {} ms p50 / p99 | endpoint's own "
        "write gaps − {} ms p99 | client's share of each ITL p50 / p99 | of each TTFT p50 / p99 | client CPU "
        "per request | max RSS |\n",
        options.ttft_ms, options.itl_ms, options.itl_ms);
    fmt::print("|---|---|---|---|---|---|---|---|---|---|\n");
    for (const int streams : options.streams) {
        pdctl::load::LoadSpec spec;
        spec.url = url;
        spec.input_tokens = 16;
        spec.output_tokens = options.tokens;
        spec.concurrency = streams;
        spec.requests = streams * options.rounds;
        spec.warmup = streams;  // every connection opened before anything is measured
        const double cpu_before = thread_cpu_s();
        server.writes();
        const auto result = pdctl::load::run_load(spec, {});
        const double cpu = thread_cpu_s() - cpu_before;
        const auto written = server.writes();
        std::vector<double> ttft_excess, itl_excess, write_gap_excess, itl_share, ttft_share;
        int failed = 0;
        for (std::size_t slot = 0; slot < result.records.size(); ++slot) {
            const auto& record = result.records[slot];
            if (!record.ok()) {
                ++failed;
                continue;
            }
            ttft_excess.push_back((record.ttft_s - options.ttft_ms / 1e3) * 1e3);
            for (double gap : record.itl_s) itl_excess.push_back((gap - options.itl_ms / 1e3) * 1e3);
            // The measured requests were numbered after the warm-up's, in the order of their slots.
            const std::string body =
                pdctl::load::generate_request_body(spec.input_tokens, spec.output_tokens, spec.seed,
                                                   static_cast<std::uint64_t>(spec.warmup) + slot);
            const auto it = written.find(std::hash<std::string>{}(body));
            if (it == written.end() || it->second.writes.size() != record.itl_s.size() + 1) continue;
            const auto& writes = it->second.writes;
            ttft_share.push_back(record.ttft_s * 1e3 - ms_between(it->second.began, writes[0]));
            for (std::size_t k = 1; k < writes.size(); ++k) {
                const double gap = ms_between(writes[k - 1], writes[k]);
                write_gap_excess.push_back(gap - options.itl_ms);
                itl_share.push_back(record.itl_s[k - 1] * 1e3 - gap);
            }
        }
        using pdctl::load::percentile;
        fmt::print(
            "| {} | {} | {} | {:.2f} / {:.2f} ms | {:+.2f} / {:+.2f} ms | {:+.2f} ms | {:+.2f} / {:+.2f} ms "
            "| "
            "{:.2f} / {:.2f} ms | {:.0f} µs | {} MiB |\n",
            streams, result.records.size(), failed, percentile(ttft_excess, 50), percentile(ttft_excess, 99),
            percentile(itl_excess, 50), percentile(itl_excess, 99), percentile(write_gap_excess, 99),
            percentile(itl_share, 50), percentile(itl_share, 99), percentile(ttft_share, 50),
            percentile(ttft_share, 99), cpu / static_cast<double>(spec.requests + spec.warmup) * 1e6,
            max_rss_kb() / 1024);
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
        pin_to(0);
        overhead(options, server);
        request_rate(options, server.url());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pdctl_load_bench: %s\n", e.what());
        return 2;
    }
}

// What pdctl bench's load generator adds to what it measures (docs/benchmarks.md, "The load
// generator"): a fixed-latency SSE endpoint on loopback (first token after --ttft-ms, then one every
// --itl-ms, scheduled on absolute times) measured at several numbers of concurrent streams. The excess
// over the configured times bounds the client's overhead from above, but on two cores the endpoint's own
// lateness is in it too. So the endpoint also records when it wrote each token of each request, and
// every gap the client measured is set against the gap between the two writes: what is left is the
// client's own share (its reading, parsing and scheduling, and the loopback), token by token. The
// endpoint keeps to the last core and the client to the first, as on a cluster they are two machines.
//
// The endpoint shapes its chunks as SGLang's native /generate does (text, output_ids, meta_info in that
// order, orjson's compact form), in either streaming mode: incremental (--incremental-streaming-output:
// each chunk carries its own token) or cumulative (SGLang's default: each chunk carries the whole text
// and every output id so far, so chunk n is n tokens long and a request's bytes grow with the square of
// its output). Then the client's CPU per token at several output lengths in both modes, and the request
// rate on non-streamed requests, side by side with wrk.
//
//   pdctl_load_bench [--cases 1x16x4,64x16x4,256x16x4,256x2048x1:cumulative] [--ttft-ms 50]
//                    [--itl-ms 20] [--cpu-tokens 16,256,1024,4096] [--cpu-streams 32] [--cpu-itl-ms 5]
//                    [--cpu-modes incremental,cumulative] [--rate-seconds 10] [--wrk PATH]
//                    [--only overhead,cpu,rate]
// A case is STREAMSxTOKENSxROUNDS[:cumulative] (ROUNDS: requests per stream).
#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
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
#include "pdctl/load/stream_tally.hpp"
#include "pdctl/util/durations.hpp"

namespace {

using std::chrono::milliseconds;

enum class Chunks { incremental, cumulative };

const char* name(Chunks chunks) {
    return chunks == Chunks::cumulative ? "cumulative" : "incremental";
}

struct Case {
    int streams = 1;
    int tokens = 16;
    int rounds = 4;  // requests per stream
    Chunks chunks = Chunks::incremental;
};

struct Options {
    std::vector<Case> cases{{1, 16, 4, Chunks::incremental},
                            {64, 16, 4, Chunks::incremental},
                            {256, 16, 4, Chunks::incremental},
                            {256, 2048, 1, Chunks::cumulative}};
    int ttft_ms = 50;
    int itl_ms = 20;
    std::vector<int> cpu_tokens{16, 256, 1024, 4096};
    std::vector<Chunks> cpu_modes{Chunks::incremental, Chunks::cumulative};
    int cpu_streams = 32;
    int cpu_itl_ms = 5;
    int rate_seconds = 10;
    std::string wrk = "/usr/bin/wrk";
    std::string only = "overhead,cpu,rate";
};

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = text.find(by, start);
        parts.push_back(text.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return parts;
}

std::vector<int> parse_list(const std::string& text) {
    std::vector<int> values;
    for (const auto& part : split(text, ',')) values.push_back(std::stoi(part));
    return values;
}

Chunks parse_chunks(const std::string& text) {
    if (text == "cumulative") return Chunks::cumulative;
    if (text == "incremental") return Chunks::incremental;
    throw std::runtime_error("a chunk mode is incremental or cumulative, not " + text);
}

// STREAMSxTOKENSxROUNDS[:cumulative]
std::vector<Case> parse_cases(const std::string& text) {
    std::vector<Case> cases;
    for (const auto& item : split(text, ',')) {
        const auto colon = item.find(':');
        const auto numbers = split(item.substr(0, colon), 'x');
        if (numbers.size() != 3)
            throw std::runtime_error("a case is STREAMSxTOKENSxROUNDS[:mode], not " + item);
        Case one{std::stoi(numbers[0]), std::stoi(numbers[1]), std::stoi(numbers[2]), Chunks::incremental};
        if (colon != std::string::npos) one.chunks = parse_chunks(item.substr(colon + 1));
        cases.push_back(one);
    }
    return cases;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--cases")
            options.cases = parse_cases(value);
        else if (flag == "--ttft-ms")
            options.ttft_ms = std::stoi(value);
        else if (flag == "--itl-ms")
            options.itl_ms = std::stoi(value);
        else if (flag == "--cpu-tokens")
            options.cpu_tokens = parse_list(value);
        else if (flag == "--cpu-modes") {
            options.cpu_modes.clear();
            for (const auto& mode : split(value, ',')) options.cpu_modes.push_back(parse_chunks(mode));
        } else if (flag == "--cpu-streams")
            options.cpu_streams = std::stoi(value);
        else if (flag == "--cpu-itl-ms")
            options.cpu_itl_ms = std::stoi(value);
        else if (flag == "--rate-seconds")
            options.rate_seconds = std::stoi(value);
        else if (flag == "--wrk")
            options.wrk = value;
        else if (flag == "--only")
            options.only = value;
        else
            throw std::runtime_error("unknown flag " + flag);
    }
    return options;
}

bool wanted(const Options& options, const std::string& part) {
    for (const auto& one : split(options.only, ','))
        if (one == part) return true;
    return false;
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
        pdctl::util::SteadyClock::time_point began;
        std::vector<pdctl::util::SteadyClock::time_point> writes;
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

// One streamed answer as SGLang's /generate writes it: each chunk is orjson's compact form of {"text",
// "output_ids", "meta_info"} (tokenizer manager's output processor, http_server's stream_results), the
// meta_info keys in SGLang's order. The text is English-like, about 4 bytes a token, and now and then a
// token that JSON must escape, among them text that looks like the very keys a client looks for.
class SglangAnswer {
  public:
    SglangAnswer(Chunks chunks, std::size_t seed) : chunks_(chunks), seed_(seed) {}

    // The event of token n (1-based) of `total`.
    std::string event(int n, int total) {
        static const char* const kWords[] = {" the",
                                             " of",
                                             " model",
                                             ",",
                                             " and",
                                             " to",
                                             " decode",
                                             "\\n",
                                             " a",
                                             " cache",
                                             ".",
                                             " in",
                                             " prefill",
                                             " is",
                                             " \\\"completion_tokens\\\":9",
                                             " it",
                                             " \\\"meta_info\\\":{",
                                             " that"};
        const std::string_view word = kWords[(seed_ + static_cast<std::size_t>(n) * 7) % std::size(kWords)];
        const int id = 1000 + static_cast<int>((seed_ + static_cast<std::size_t>(n) * 7919) % 150000);
        if (chunks_ == Chunks::cumulative) {
            text_.append(word);
            if (n > 1) ids_ += ',';
            ids_ += std::to_string(id);
        } else {
            text_.assign(word);
            ids_ = std::to_string(id);
        }
        const std::string finish =
            n == total ? fmt::format(R"({{"type":"length","length":{}}})", total) : std::string("null");
        std::string out;
        out.reserve(text_.size() + ids_.size() + 300);
        out += R"(data: {"text":")";
        out += text_;
        out += R"(","output_ids":[)";
        out += ids_;
        out += fmt::format(
            R"(],"meta_info":{{"id":"{:032x}","finish_reason":{},"prompt_tokens":16,"weight_version":"default",)"
            R"("num_retractions":0,"reasoning_tokens":0,"completion_tokens":{},"cached_tokens":0}}}})",
            seed_, finish, n);
        out += "\n\n";
        return out;
    }

  private:
    Chunks chunks_;
    std::size_t seed_;
    std::string text_;
    std::string ids_;
};

// The endpoint: streamed requests get their tokens on a fixed schedule from the moment the handler
// runs; "stream":false gets a one-token JSON answer at once (the request-rate test). The warm-up
// requests of a level only open the connections: they get one token and end (the client counts them
// as failures, and never counts warm-ups), so a 2048-token level does not wait twice as long.
class FixedLatencyServer {
  public:
    FixedLatencyServer() {
        server_.new_task_queue = [] { return new httplib::ThreadPool(320); };
        server_.set_tcp_nodelay(true);
        server_.set_keep_alive_max_count(1000000);
        server_.Post("/generate", [this](const httplib::Request& request, httplib::Response& response) {
            thread_local const bool pinned = (pin_to(-1), true);
            (void)pinned;
            if (request.body.find("\"stream\":false") != std::string::npos) {
                response.set_content(R"({"text":"x","meta_info":{"completion_tokens":1}})",
                                     "application/json");
                return;
            }
            const auto began = pdctl::util::SteadyClock::now();
            const std::size_t body = std::hash<std::string>{}(request.body);
            const bool warmup = warmups_left_.fetch_sub(1) > 0;
            const Level level = current_level();
            response.set_chunked_content_provider(
                "text/event-stream",
                [this, level, warmup, began, body](std::size_t, httplib::DataSink& sink) {
                    WriteLog::Request written{began, {}};
                    SglangAnswer answer(level.chunks, body);
                    const int tokens = warmup ? 1 : level.tokens;
                    for (int n = 1; n <= tokens; ++n) {
                        const auto due = began + level.ttft + level.itl * (n - 1);
                        std::this_thread::sleep_until(due);
                        const std::string event = answer.event(n, tokens);
                        // Stamped before the write: a write of a long chunk that waits for the client
                        // to read would otherwise hide the client's lateness in the endpoint's gap.
                        written.writes.push_back(pdctl::util::SteadyClock::now());
                        if (!sink.write(event.data(), event.size())) return false;
                    }
                    if (!warmup) writes_.add(body, std::move(written));
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
    // The next level: its shape, and how many warm-up requests come first. Set between levels only.
    void level(Chunks chunks, int tokens, milliseconds ttft, milliseconds itl, int warmups) {
        {
            std::lock_guard lock(level_mutex_);
            level_ = Level{chunks, tokens, ttft, itl};
        }
        warmups_left_ = warmups;
        writes_.take();
    }
    std::string url() const { return fmt::format("http://127.0.0.1:{}/generate", port_); }
    std::unordered_map<std::size_t, WriteLog::Request> writes() { return writes_.take(); }

  private:
    struct Level {
        Chunks chunks = Chunks::incremental;
        int tokens = 16;
        milliseconds ttft{50};
        milliseconds itl{20};
    };
    Level current_level() {
        std::lock_guard lock(level_mutex_);
        return level_;
    }

    std::mutex level_mutex_;
    Level level_;
    std::atomic<int> warmups_left_{0};
    WriteLog writes_;
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

struct Cpu {
    double user_s = 0;
    double system_s = 0;
    double total() const { return user_s + system_s; }
};

Cpu thread_cpu() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

Cpu operator-(const Cpu& a, const Cpu& b) {
    return {a.user_s - b.user_s, a.system_s - b.system_s};
}

long max_rss_kb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

double ms_between(pdctl::util::SteadyClock::time_point from, pdctl::util::SteadyClock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

pdctl::load::LoadSpec spec_for(const std::string& url, int streams, int tokens, int rounds) {
    pdctl::load::LoadSpec spec;
    spec.url = url;
    spec.input_tokens = 16;
    spec.output_tokens = tokens;
    spec.concurrency = streams;
    spec.requests = streams * rounds;
    spec.warmup = streams;  // every connection opened before anything is measured
    return spec;
}

// The most frequent failure of a level and how many failed so, "" when none did.
std::string why_failed(const std::vector<pdctl::load::RequestRecord>& records) {
    std::unordered_map<std::string, int> counts;
    std::string most;
    for (const auto& record : records) {
        if (record.ok()) continue;
        const std::string group = pdctl::load::error_group(record.error);
        if (++counts[group] > counts[most]) most = group;
    }
    return most.empty() ? std::string() : fmt::format("{} × {}", counts[most], most);
}

void overhead(const Options& options, FixedLatencyServer& server) {
    const std::string url = server.url();
    std::vector<std::string> failures;
    fmt::print("### Added latency: fixed endpoint, TTFT {} ms, ITL {} ms\n\n", options.ttft_ms,
               options.itl_ms);
    fmt::print(
        "| streams × tokens, chunks | requests | failed | TTFT − {} ms p50 / p99 | ITL − {} ms p50 / p99 | "
        "endpoint's own write gaps − {} ms p99 | client's share of each ITL p50 / p99 | of each TTFT p50 / "
        "p99 "
        "| client CPU per token | max RSS |\n",
        options.ttft_ms, options.itl_ms, options.itl_ms);
    fmt::print("|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Case& level : options.cases) {
        const auto spec = spec_for(url, level.streams, level.tokens, level.rounds);
        server.level(level.chunks, level.tokens, milliseconds(options.ttft_ms), milliseconds(options.itl_ms),
                     spec.warmup);
        const Cpu cpu_before = thread_cpu();
        const auto result = pdctl::load::run_load(spec, {});
        const Cpu cpu = thread_cpu() - cpu_before;
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
        const double tokens = static_cast<double>(spec.requests) * level.tokens + spec.warmup;
        fmt::print(
            "| {} × {}, {} | {} | {} | {:.2f} / {:.2f} ms | {:+.2f} / {:+.2f} ms | {:+.2f} ms | {:+.2f} / "
            "{:+.2f} ms | {:.2f} / {:.2f} ms | {:.1f} µs | {} MiB |\n",
            level.streams, level.tokens, name(level.chunks), result.records.size(), failed,
            percentile(ttft_excess, 50), percentile(ttft_excess, 99), percentile(itl_excess, 50),
            percentile(itl_excess, 99), percentile(write_gap_excess, 99), percentile(itl_share, 50),
            percentile(itl_share, 99), percentile(ttft_share, 50), percentile(ttft_share, 99),
            cpu.total() / tokens * 1e6, max_rss_kb() / 1024);
        failures.push_back(why_failed(result.records));
        std::fflush(stdout);
    }
    for (const auto& failure : failures)
        if (!failure.empty()) fmt::print("\nFailed: {}\n", failure);
}

// The client's CPU per token at several output lengths: its thread's user and system time over a
// level of --cpu-streams streams, divided by the tokens the level received (warm-ups included, one token
// each). Each length gets about the same number of tokens in all (more rounds for short answers), so
// the per-request costs (connection reuse, sending, the headers) weigh on the shortest most.
void cpu_per_token(const Options& options, FixedLatencyServer& server) {
    fmt::print("\n### Client CPU per token: {} streams, TTFT {} ms, ITL {} ms\n\n", options.cpu_streams,
               options.ttft_ms, options.cpu_itl_ms);
    fmt::print(
        "| chunks | output tokens | requests | failed | bytes received per token | client CPU per token "
        "(user + "
        "system) | user | system |\n");
    fmt::print("|---|---|---|---|---|---|---|---|\n");
    std::vector<std::string> failures;
    for (const Chunks chunks : options.cpu_modes) {
        for (const int length : options.cpu_tokens) {
            const int rounds = std::max(1, 1024 / length);
            const auto spec = spec_for(server.url(), options.cpu_streams, length, rounds);
            server.level(chunks, length, milliseconds(options.ttft_ms), milliseconds(options.cpu_itl_ms),
                         spec.warmup);
            // The bytes of one answer of this length, as the endpoint writes them.
            SglangAnswer sample(chunks, 12345);
            double bytes = 0;
            for (int n = 1; n <= length; ++n) bytes += static_cast<double>(sample.event(n, length).size());
            const Cpu before = thread_cpu();
            const auto result = pdctl::load::run_load(spec, {});
            const Cpu cpu = thread_cpu() - before;
            server.writes();
            int failed = 0;
            for (const auto& record : result.records) failed += record.ok() ? 0 : 1;
            const double tokens = static_cast<double>(spec.requests) * length + spec.warmup;
            fmt::print("| {} | {} | {} | {} | {:.0f} | {:.2f} µs | {:.2f} µs | {:.2f} µs |\n", name(chunks),
                       length, result.records.size(), failed, bytes / length, cpu.total() / tokens * 1e6,
                       cpu.user_s / tokens * 1e6, cpu.system_s / tokens * 1e6);
            if (const auto why = why_failed(result.records); !why.empty())
                failures.push_back(fmt::format("{} × {} tokens: {}", name(chunks), length, why));
            std::fflush(stdout);
        }
    }
    for (const auto& failure : failures) fmt::print("\nFailed: {}\n", failure);
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
        FixedLatencyServer server;
        pin_to(0);
        if (wanted(options, "overhead")) overhead(options, server);
        if (wanted(options, "cpu")) cpu_per_token(options, server);
        if (wanted(options, "rate")) request_rate(options, server.url());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pdctl_load_bench: %s\n", e.what());
        return 2;
    }
}

#include "pdctl/report/phases.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

namespace pdctl::report {
namespace {

// Which programs a rule applies to: the same uvicorn line means different things for SGLang and MiniLB.
enum class Only { kAny, kRouter, kNotRouter };

struct Rule {
    Phase phase;
    // Lower-case text the line must contain. Checked before the regex: std::regex is slow, and every
    // unit's tail is classified every couple of seconds.
    std::string_view needle;
    const char* pattern;
    bool icase = false;
    Only only = Only::kAny;
};

// First matching rule wins, so the failures come first ("Disaggregation warmup failed" is a failure,
// not warm-up). Lines logged once at start-up whatever happens later ("Cuda graph is disabled for
// prefill server", "KV cache is forced as chunk cache") are deliberately absent: real SGLang prints
// them while parsing arguments, so they say nothing about progress.
const std::array kRules = {
    // -- failed (scheduler.py, http_server.py, engine.py, Mooncake) --
    Rule{Phase::kFailed, "scheduler hit an exception", "Scheduler hit an exception"},
    Rule{Phase::kFailed, "initialization failed", "Initialization failed"},
    Rule{Phase::kFailed, "scheduler is dead", "Rank \\d+ scheduler is dead"},
    Rule{Phase::kFailed, "memory registration failed", "Mooncake memory registration failed", true},
    // v0.5.4 "Prefill disaggregation mode warm Up Failed", HEAD "Disaggregation warmup failed".
    Rule{Phase::kFailed, "up failed", "warm ?up failed", true},
    // uvicorn cannot bind the API port and the server exits.
    Rule{Phase::kFailed, "error while attempting to bind", "error while attempting to bind on address"},
    // glog FATAL (Mooncake master, transfer engine): "F0312 08:52:39.123456 4242 x.cpp:9] Check failed".
    Rule{Phase::kFailed, "check failed", "^F\\d{4} \\d\\d:\\d\\d:\\d\\d.*Check failed"},

    // -- ready --
    Rule{Phase::kReady, "fired up and ready to roll", "The server is fired up and ready to roll"},
    Rule{Phase::kReady, "master service started", "Master service started"},
    Rule{Phase::kReady, "starting router on", "Starting router on"},  // Rust router, after its workers
    Rule{Phase::kReady, "uvicorn running on", "Uvicorn running on", false, Only::kRouter},  // MiniLB

    // -- rank 0 after the scheduler: API port, then the warm-up request --
    // v0.5.4 "Start of pd disaggregation warmup ...", "End of prefill disaggregation mode warmup with
    // status 200"; HEAD "Disaggregation warmup requests completed for all N DP ranks", "End of
    // disaggregation warmup".
    Rule{Phase::kWarmup, "warmup", "disaggregation (mode )?warmup", true},
    Rule{Phase::kHttpUp, "uvicorn running on", "Uvicorn running on", false, Only::kNotRouter},

    // -- ranks >= 1: done, answering the dummy /health ("scheduled on existing loop" v0.5.4,
    // "started in background thread" HEAD) --
    Rule{Phase::kJoined, "dummy health check server", "Dummy health check server (scheduled|started)"},

    // -- scheduler start-up (model_runner.py; HEAD moved some of it, same words) --
    // v0.5.4 "Capture cuda graph begin."; HEAD "Capture target decode CUDA graph begin."
    Rule{Phase::kCudaGraphs, "cuda graph", "Capture .*cuda graph (begin|end)", true},
    // The KV pool is sized from the memory left after the weights, right after they are loaded.
    Rule{Phase::kKvCache, "load weight end", "Load weight end"},
    Rule{Phase::kKvCache, "kv cache is allocated", "KV Cache is allocated", true},
    Rule{Phase::kKvCache, "memory pool end", "Memory pool end"},
    Rule{Phase::kLoadingWeights, "load weight begin", "Load weight begin"},
    // The loader's progress bar, in case it pushed "Load weight begin" out of the tail.
    Rule{Phase::kLoadingWeights, "checkpoint shards", "Loading (safetensors|pt) checkpoint shards"},
    Rule{Phase::kInitialising, "server_args=", "server_args=ServerArgs\\("},
    // v0.5.4 "Init torch distributed ends. mem usage=.."; HEAD "... ends. elapsed=..".
    Rule{Phase::kInitialising, "init torch distributed", "Init torch distributed (begin|ends)"},
    // Mooncake transfer engine (PD only).
    Rule{Phase::kInitialising, "transfer engine rpc", "Transfer Engine RPC using"},
    Rule{Phase::kInitialising, "topology", "Auto-discovering topology|Topology discovery complete"},
    Rule{Phase::kInitialising, "rdma device:", "RDMA device: "},
    Rule{Phase::kInitialising, "mc_force_tcp", "MC_FORCE_TCP is set"},
    // Rust router before it serves.
    Rule{Phase::kInitialising, "workers to become healthy", "Waiting for \\d+ workers to become healthy"},
};

struct WarningRule {
    std::string_view needle;
    const char* pattern;
    const char* message;
};

const std::array kWarnings = {
    WarningRule{"found 0 hcas", "Found 0 HCAs",
                "Mooncake found 0 HCAs: no RDMA device, the KV transfer falls back to TCP"},
    WarningRule{"mc_force_tcp", "MC_FORCE_TCP is set",
                "MC_FORCE_TCP is set: Mooncake transfers the KV cache over TCP, not RDMA"},
};

struct Compiled {
    std::vector<std::regex> rules;
    std::vector<std::regex> warnings;
};

const Compiled& compiled() {
    static const Compiled table = [] {
        Compiled result;
        for (const auto& rule : kRules) {
            auto flags = std::regex::ECMAScript | std::regex::optimize;
            if (rule.icase) flags |= std::regex::icase;
            result.rules.emplace_back(rule.pattern, flags);
        }
        for (const auto& warning : kWarnings)
            result.warnings.emplace_back(warning.pattern, std::regex::ECMAScript | std::regex::optimize);
        return result;
    }();
    return table;
}

bool applies(Only only, config::RoleKind kind) {
    switch (only) {
        case Only::kAny:
            return true;
        case Only::kRouter:
            return kind == config::RoleKind::Router;
        case Only::kNotRouter:
            return kind != config::RoleKind::Router;
    }
    return true;
}

// libstdc++'s std::regex matches recursively, a few stack frames per character a `.*` or `\d+` spans:
// a 30 KB log line holding "Capture ... cuda graph" overflowed the 8 MB stack and killed pdctl
// (found by tests/fuzz/log_phases_fuzz.cpp). The lines the rules look for are short and start with
// what they match (server_args=ServerArgs( is the one long line, matched at its start), so the regexes
// only see a line's first kMaxMatchedLength characters; 4 KiB recurses well within any thread's stack.
constexpr std::size_t kMaxMatchedLength = 4096;

bool search(const std::string& line, const std::regex& regex) {
    const auto length = static_cast<std::ptrdiff_t>(std::min(line.size(), kMaxMatchedLength));
    return std::regex_search(line.begin(), line.begin() + length, regex);
}

std::optional<Phase> match_phase(const std::string& line, const std::string& lower, config::RoleKind kind) {
    const auto& regexes = compiled().rules;
    for (std::size_t i = 0; i < kRules.size(); ++i) {
        const auto& rule = kRules[i];
        if (lower.find(rule.needle) == std::string::npos || !applies(rule.only, kind)) continue;
        if (search(line, regexes[i])) return rule.phase;
    }
    return std::nullopt;
}

// Reads `count` digits at `pos`; false if any is missing.
bool read_number(std::string_view text, std::size_t pos, std::size_t count, int& out) {
    if (pos + count > text.size()) return false;
    out = 0;
    for (std::size_t i = pos; i < pos + count; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
        out = out * 10 + (text[i] - '0');
    }
    return true;
}

// "HH:MM:SS" at `pos`.
bool read_clock(std::string_view text, std::size_t pos, int& h, int& m, int& s) {
    return read_number(text, pos, 2, h) && pos + 8 <= text.size() && text[pos + 2] == ':' &&
           read_number(text, pos + 3, 2, m) && text[pos + 5] == ':' && read_number(text, pos + 6, 2, s);
}

// "YYYY-MM-DD" at `pos`.
bool read_date(std::string_view text, std::size_t pos, int& y, int& mo, int& d) {
    return read_number(text, pos, 4, y) && pos + 10 <= text.size() && text[pos + 4] == '-' &&
           read_number(text, pos + 5, 2, mo) && text[pos + 7] == '-' && read_number(text, pos + 8, 2, d);
}

std::optional<LogTime> make_time(int y, int mo, int d, int h, int m, int s) {
    using namespace std::chrono;
    const year_month_day date{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
    if (!date.ok() || h > 23 || m > 59 || s > 60) return std::nullopt;
    return sys_days{date} + hours{h} + minutes{m} + seconds{s};
}

int current_year() {
    using namespace std::chrono;
    return static_cast<int>(year_month_day{floor<days>(system_clock::now())}.year());
}

std::string lower_case(const std::string& text) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

}  // namespace

std::string_view phase_id(Phase phase) {
    switch (phase) {
        case Phase::kStarting:
            return "starting";
        case Phase::kInitialising:
            return "initialising";
        case Phase::kLoadingWeights:
            return "loading-weights";
        case Phase::kKvCache:
            return "kv-cache";
        case Phase::kCudaGraphs:
            return "cuda-graphs";
        case Phase::kJoined:
            return "joined";
        case Phase::kHttpUp:
            return "http-up";
        case Phase::kWarmup:
            return "warm-up";
        case Phase::kReady:
            return "ready";
        case Phase::kFailed:
            return "failed";
    }
    return "unknown";
}

std::string_view phase_label(Phase phase) {
    switch (phase) {
        case Phase::kStarting:
            return "starting";
        case Phase::kInitialising:
            return "initialising";
        case Phase::kLoadingWeights:
            return "loading weights";
        case Phase::kKvCache:
            return "allocating KV cache";
        case Phase::kCudaGraphs:
            return "capturing CUDA graphs";
        case Phase::kJoined:
            return "joined, serving health";
        case Phase::kHttpUp:
            return "HTTP up";
        case Phase::kWarmup:
            return "warming up";
        case Phase::kReady:
            return "ready";
        case Phase::kFailed:
            return "failed";
    }
    return "unknown";
}

std::optional<LogTime> parse_log_time(std::string_view line, int glog_year) {
    int y = 0, mo = 0, d = 0, h = 0, m = 0, s = 0;
    // SGLang: "[YYYY-MM-DD HH:MM:SS" followed by "]" or " <prefix>]".
    if (line.size() >= 21 && line[0] == '[' && read_date(line, 1, y, mo, d) && line[11] == ' ' &&
        read_clock(line, 12, h, m, s) && (line[20] == ']' || line[20] == ' '))
        return make_time(y, mo, d, h, m, s);
    // Rust router (tracing): "YYYY-MM-DDTHH:MM:SS.ffffffZ" or with a space.
    if (line.size() >= 19 && read_date(line, 0, y, mo, d) && (line[10] == 'T' || line[10] == ' ') &&
        read_clock(line, 11, h, m, s))
        return make_time(y, mo, d, h, m, s);
    // glog: "IMMDD HH:MM:SS.uuuuuu".
    if (line.size() >= 15 && std::string_view("IWEF").find(line[0]) != std::string_view::npos &&
        read_number(line, 1, 2, mo) && read_number(line, 3, 2, d) && line[5] == ' ' &&
        read_clock(line, 6, h, m, s) && line[14] == '.')
        return make_time(glog_year, mo, d, h, m, s);
    return std::nullopt;
}

Classification classify(const std::vector<std::string>& lines, config::RoleKind kind) {
    // glog lines carry no year: borrow it from a line that does, else assume this year.
    int glog_year = 0;
    for (const auto& line : lines) {
        int y = 0, mo = 0, d = 0;
        const std::string_view view = line;
        if ((view.size() > 11 && view[0] == '[' && read_date(view, 1, y, mo, d)) ||
            read_date(view, 0, y, mo, d)) {
            glog_year = y;
            break;
        }
    }
    if (glog_year == 0) glog_year = current_year();

    Classification result;
    const auto& warning_regexes = compiled().warnings;
    for (const auto& line : lines) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        result.last_line = line;
        const auto time = parse_log_time(line, glog_year);
        if (time) result.newest = time;
        const std::string lower = lower_case(line);
        for (std::size_t i = 0; i < kWarnings.size(); ++i) {
            if (lower.find(kWarnings[i].needle) == std::string::npos) continue;
            if (!search(line, warning_regexes[i])) continue;
            const std::string message = kWarnings[i].message;
            if (std::find(result.warnings.begin(), result.warnings.end(), message) == result.warnings.end())
                result.warnings.push_back(message);
        }
        // A unit only moves forward: a late line of an earlier phase (e.g. transfer-engine lines
        // logged after the weights) never takes it back, and the first line of the furthest phase
        // marks when that phase began.
        const auto phase = match_phase(line, lower, kind);
        if (!phase || *phase <= result.phase) continue;
        result.phase = *phase;
        result.since = time;
        result.phase_line = line;
    }
    return result;
}

}  // namespace pdctl::report

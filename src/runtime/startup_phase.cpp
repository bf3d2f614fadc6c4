#include "pdctl/runtime/startup_phase.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

#include "log_patterns.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::runtime {
namespace {

using log_patterns::Only;

struct Compiled {
    std::vector<std::regex> rules;
    std::vector<std::regex> warnings;
};

const Compiled& compiled() {
    static const Compiled table = [] {
        Compiled result;
        for (const auto& rule : log_patterns::phase_rules()) {
            auto flags = std::regex::ECMAScript | std::regex::optimize;
            if (rule.icase) flags |= std::regex::icase;
            result.rules.emplace_back(rule.pattern, flags);
        }
        for (const auto& warning : log_patterns::warning_rules())
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

const log_patterns::PhaseRule* match_phase(const std::string& line, const std::string& lower,
                                           config::RoleKind kind) {
    const auto& regexes = compiled().rules;
    const auto rules = log_patterns::phase_rules();
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const auto& rule = rules[i];
        if (lower.find(rule.needle) == std::string::npos || !applies(rule.only, kind)) continue;
        if (search(line, regexes[i])) return &rule;
    }
    return nullptr;
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

// Every phase's names, in enum order (checked below): one table for ids, labels and short labels.
struct PhaseNames {
    Phase phase;
    std::string_view id;
    std::string_view label;
    std::string_view short_label;
};
constexpr std::array kPhaseNames = {
    PhaseNames{Phase::kStarting, "starting", "starting", "launch"},
    PhaseNames{Phase::kInitialising, "initialising", "initialising", "init"},
    PhaseNames{Phase::kLoadingWeights, "loading-weights", "loading weights", "weights"},
    PhaseNames{Phase::kKvCache, "kv-cache", "allocating KV cache", "KV"},
    PhaseNames{Phase::kCudaGraphs, "cuda-graphs", "capturing CUDA graphs", "graphs"},
    PhaseNames{Phase::kJoined, "joined", "joined, serving health", "joined"},
    PhaseNames{Phase::kHttpUp, "http-up", "HTTP up", "HTTP"},
    PhaseNames{Phase::kWarmup, "warm-up", "warming up", "warm-up"},
    PhaseNames{Phase::kReady, "ready", "ready", "ready"},
    PhaseNames{Phase::kFailed, "failed", "failed", "failed"},
};
constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < kPhaseNames.size(); ++i)
        if (static_cast<std::size_t>(kPhaseNames[i].phase) != i) return false;
    return true;
}
static_assert(in_enum_order() && kPhaseNames.size() == static_cast<std::size_t>(Phase::kFailed) + 1);

const PhaseNames& names(Phase phase) {
    static constexpr PhaseNames kUnknown{Phase::kFailed, "unknown", "unknown", "?"};  // not a Phase
    const auto index = static_cast<std::size_t>(phase);
    return index < kPhaseNames.size() ? kPhaseNames[index] : kUnknown;
}

}  // namespace

std::string_view phase_id(Phase phase) {
    return names(phase).id;
}

std::string_view phase_label(Phase phase) {
    return names(phase).label;
}

std::string_view phase_short_label(Phase phase) {
    return names(phase).short_label;
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
    const auto warnings = log_patterns::warning_rules();
    for (const auto& line : lines) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        result.last_line = line;
        const auto time = parse_log_time(line, glog_year);
        if (time) result.newest = time;
        const std::string lower = util::lower(line);
        for (std::size_t i = 0; i < warnings.size(); ++i) {
            if (lower.find(warnings[i].needle) == std::string::npos) continue;
            if (!search(line, warning_regexes[i])) continue;
            const std::string message = warnings[i].message;
            if (std::find(result.warnings.begin(), result.warnings.end(), message) == result.warnings.end())
                result.warnings.push_back(message);
        }
        // A unit only moves forward: a late line of an earlier phase (e.g. transfer-engine lines
        // logged after the weights) never takes it back, and the first line of the furthest phase
        // marks when that phase began.
        const auto* rule = match_phase(line, lower, kind);
        if (!rule || rule->phase < result.phase) continue;
        if (rule->phase == result.phase) {
            result.phase_done = result.phase_done || rule->ends;
            continue;
        }
        result.phase = rule->phase;
        result.phase_done = rule->ends;
        result.since = time;
        result.phase_line = line;
        result.entered.push_back({rule->phase, time});
    }
    return result;
}

}  // namespace pdctl::runtime

#include "pdctl/runtime/log_query.hpp"

#include <regex>
#include <sstream>

#include "embedded/runtime_scripts.hpp"
#include "pdctl/config/duration.hpp"

namespace pdctl::runtime {
namespace {

// The scripts are src/runtime/scripts/log_*.sh: file, unit, cursor and times arrive as positional
// parameters.

constexpr const char* kOffsetHeader = "pdctl-log-offset=";
constexpr const char* kCursorHeader = "pdctl-log-cursor=";
constexpr const char* kRestartedHeader = "pdctl-log-restarted";

std::string log_file(const std::string& node_dir, const std::string& unit) {
    return node_dir + "/" + unit + ".log";
}

exec::Command with_timeout(std::vector<std::string> argv) {
    exec::Command command;
    command.argv = std::move(argv);
    command.timeout = std::chrono::seconds(30);
    return command;
}

bool is_container(const RuntimeSpec& runtime) {
    return runtime.kind == config::RuntimeKind::Docker;
}

// "2026-11-29T08:12:03.123456789Z text" -> the stamp, or "" for a line without one.
std::string leading_timestamp(const std::string& line) {
    const auto space = line.find(' ');
    std::string word = line.substr(0, space);  // not const: returned by move
    if (word.size() < 20 || word[4] != '-' || word[10] != 'T' || word.back() != 'Z') return "";
    return word;
}

}  // namespace

std::optional<Since> parse_since(const std::string& text) {
    if (const auto relative = config::parse_duration(text)) {
        return Since{std::chrono::duration_cast<std::chrono::seconds>(*relative).count(), ""};
    }
    static const std::regex absolute(R"((\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?)");
    std::smatch match;
    if (!std::regex_match(text, match, absolute)) return std::nullopt;
    return Since{-1, match[1].str() + " " + match[2].str() + (match[3].matched ? match[3].str() : ":00")};
}

std::string normalize_rfc3339(const std::string& timestamp) {
    if (timestamp.empty() || timestamp.back() != 'Z') return timestamp;
    const auto dot = timestamp.find('.');
    const std::string whole = timestamp.substr(0, dot == std::string::npos ? timestamp.size() - 1 : dot);
    std::string fraction =
        dot == std::string::npos ? "" : timestamp.substr(dot + 1, timestamp.size() - dot - 2);
    fraction.resize(9, '0');
    return whole + "." + fraction + "Z";
}

namespace {

// The process runtime's log reader (log_process_read.sh) over one file.
exec::Command read_log_file_command(const std::string& file, const LogRequest& request) {
    std::string mode = "none", value;
    if (request.since && request.since->seconds_ago >= 0) {
        mode = "ago";
        value = std::to_string(request.since->seconds_ago);
    } else if (request.since) {
        mode = "at";
        value = request.since->local_time;
    }
    return with_timeout({"sh", "-c", std::string(scripts::log_process_read), "pdctl-logs", file,
                         std::to_string(request.tail_lines), request.with_cursor ? "1" : "0", mode, value});
}

}  // namespace

std::string previous_log_file(const std::string& node_dir, const std::string& unit) {
    return node_dir + "/previous/" + unit + ".log";
}

exec::Command previous_log_command(const std::string& node_dir, const std::string& unit,
                                   const LogRequest& request) {
    return read_log_file_command(previous_log_file(node_dir, unit), request);
}

exec::Command read_log_command(const RuntimeSpec& runtime, const std::string& node_dir,
                               const std::string& unit, const LogRequest& request) {
    if (is_container(runtime)) {
        std::vector<std::string> argv = {"sh",        "-c", std::string(scripts::log_container), "pdctl-logs",
                                         runtime.cli, unit, request.with_cursor ? "1" : "0"};
        if (request.with_cursor) argv.emplace_back("--timestamps");
        if (request.since) {
            argv.emplace_back("--since");
            // docker reads a time without a zone in the local zone of the machine running docker: the node.
            std::string at = request.since->local_time;
            if (!at.empty()) at[10] = 'T';
            argv.push_back(request.since->seconds_ago >= 0 ? std::to_string(request.since->seconds_ago) + "s"
                                                           : at);
        }
        argv.insert(argv.end(),
                    {"--tail", request.tail_lines >= 0 ? std::to_string(request.tail_lines) : "all"});
        return with_timeout(std::move(argv));
    }
    return read_log_file_command(log_file(node_dir, unit), request);
}

exec::Command follow_log_command(const RuntimeSpec& runtime, const std::string& node_dir,
                                 const std::string& unit, const LogCursor& cursor, long long max_bytes) {
    if (is_container(runtime)) {
        std::vector<std::string> argv = {"sh",         "-c",          std::string(scripts::log_container),
                                         "pdctl-logs", runtime.cli,   unit,
                                         "0",          "--timestamps"};
        if (!cursor.timestamp.empty()) argv.insert(argv.end(), {"--since", cursor.timestamp});
        return with_timeout(std::move(argv));
    }
    return with_timeout({"sh", "-c", std::string(scripts::log_process_follow), "pdctl-logs-follow",
                         log_file(node_dir, unit), std::to_string(cursor.offset), std::to_string(max_bytes)});
}

LogChunk parse_log_chunk(const RuntimeSpec& runtime, const std::string& output, const LogCursor& previous) {
    LogChunk chunk;
    chunk.next = previous;
    std::size_t pos = 0;
    // Header lines first; everything after them is log text, byte for byte.
    while (pos < output.size() && output.compare(pos, 10, "pdctl-log-") == 0) {
        const auto end = output.find('\n', pos);
        const std::string line = output.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? output.size() : end + 1;
        if (line == kRestartedHeader) {
            chunk.restarted = true;
        } else if (line.rfind(kOffsetHeader, 0) == 0) {
            try {
                chunk.next.offset = std::stoll(line.substr(std::char_traits<char>::length(kOffsetHeader)));
            } catch (const std::exception&) {
                // keep the previous offset: the next poll reads the same bytes again rather than skip any
            }
        } else if (line.rfind(kCursorHeader, 0) == 0) {
            const auto now = normalize_rfc3339(line.substr(std::char_traits<char>::length(kCursorHeader)));
            if (now > normalize_rfc3339(chunk.next.timestamp)) chunk.next.timestamp = now;
        }
    }
    const std::string body = output.substr(pos);
    if (!is_container(runtime)) {
        chunk.text = body;
        return chunk;
    }
    // docker --since is inclusive: lines at or before the cursor were shown by the previous read.
    const std::string seen = normalize_rfc3339(previous.timestamp);
    std::istringstream in(body);
    std::string line;
    while (std::getline(in, line)) {
        const std::string stamp = leading_timestamp(line);
        if (stamp.empty()) {
            chunk.text += line + "\n";
            continue;
        }
        const std::string normalized = normalize_rfc3339(stamp);
        if (!seen.empty() && normalized <= seen) continue;
        chunk.text += line.substr(std::min(line.size(), stamp.size() + 1)) + "\n";
        if (normalized > normalize_rfc3339(chunk.next.timestamp)) chunk.next.timestamp = normalized;
    }
    return chunk;
}

}  // namespace pdctl::runtime

#include "pdctl/runtime/kernel_cache.hpp"

#include <algorithm>
#include <sstream>

#include "embedded/runtime_scripts.hpp"
#include "tagged_lines.hpp"

namespace pdctl::runtime {

std::optional<CacheOutcome> parse_cache_outcome(std::string_view start_answer) {
    // The line ends at a newline, or at "; " where the runtime's own answer follows it (the journal
    // keeps a start's lines joined).
    constexpr std::string_view kHead = "cache ";
    const auto at = start_answer.find(kHead);
    if (at != 0) return std::nullopt;
    std::string_view rest = start_answer.substr(kHead.size());
    const auto word = [&rest]() {
        const auto end = rest.find_first_of(" \n;");
        std::string_view out = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
        if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        return std::string(out);
    };
    CacheOutcome outcome;
    const std::string result = word();
    if (result != "hit" && result != "miss") return std::nullopt;
    outcome.hit = result == "hit";
    outcome.key = word();
    outcome.dir = word();
    if (outcome.key.empty() || outcome.dir.empty()) return std::nullopt;
    constexpr std::string_view kAside = "; set aside ";
    if (rest.substr(0, kAside.size()) == kAside) {
        rest.remove_prefix(kAside.size());
        const auto colon = rest.find(": ");
        const auto end = rest.find_first_of(";\n");
        outcome.set_aside = std::string(rest.substr(0, std::min(colon, end)));
        if (colon != std::string_view::npos && colon < end)
            outcome.why =
                std::string(rest.substr(colon + 2, end == std::string_view::npos ? end : end - colon - 2));
    }
    return outcome;
}

}  // namespace pdctl::runtime

namespace pdctl::runtime {
namespace {

long long to_number(const std::string& word) {
    try {
        return std::stoll(word);
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

exec::Command cache_status_command(const std::vector<std::string>& dirs) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::cache_status), "pdctl-cache-status"};
    command.argv.insert(command.argv.end(), dirs.begin(), dirs.end());
    command.timeout = std::chrono::seconds(60);  // du over a cache of many small files
    return command;
}

NodeCaches parse_cache_status(const std::string& output) {
    NodeCaches caches;
    detail::for_each_tagged_line(output, [&caches](const std::string& kind, std::istringstream& words) {
        if (kind == "now") {
            std::string now;
            words >> now;
            caches.now_epoch = to_number(now);
        } else if (kind == "live") {
            CacheDirState dir;
            std::string key, bytes, made, last, last_at;
            words >> dir.dir >> key >> bytes >> made >> last >> last_at;
            dir.key = key == "-" ? "" : key;
            dir.bytes = to_number(bytes);
            dir.made_epoch = to_number(made);
            dir.last_result = last == "-" ? "" : last;
            dir.last_start_epoch = to_number(last_at);
            caches.dirs.push_back(std::move(dir));
        } else if (kind == "stale") {
            std::string dir, key, bytes, at;
            words >> dir >> key >> bytes >> at;
            for (auto& live : caches.dirs)
                if (live.dir == dir) live.set_aside.push_back({key, to_number(bytes), to_number(at)});
        }
    });
    return caches;
}

exec::Command cache_clear_command(const std::vector<std::string>& dirs, bool only_set_aside) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::cache_clear), "pdctl-cache-clear",
                    only_set_aside ? "stale" : "all"};
    command.argv.insert(command.argv.end(), dirs.begin(), dirs.end());
    command.timeout = std::chrono::minutes(10);
    return command;
}

long long parse_cleared_bytes(const std::string& output) {
    long long total = 0;
    detail::for_each_tagged_line(output, [&total](const std::string& kind, std::istringstream& words) {
        std::string dir, bytes;
        words >> dir >> bytes;
        if (kind == "cleared") total += to_number(bytes);
    });
    return total;
}

namespace {

exec::Command spread_script(std::vector<std::string> args, std::chrono::seconds timeout) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::cache_spread), "pdctl-cache-spread"};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.timeout = timeout;
    return command;
}

}  // namespace

exec::Command cache_peek_command(const CacheSpec& cache, const std::string& cli) {
    return spread_script({"peek", cli, cache.script_text()}, std::chrono::seconds(60));
}

CachePeek parse_cache_peek(const std::string& output) {
    CachePeek peek;
    detail::for_each_tagged_line(output, [&peek](const std::string& kind, std::istringstream& words) {
        std::string value;
        words >> value;
        if (kind == "want") peek.want = value;
        if (kind == "have") peek.have = value == "-" ? "" : value;
        if (kind == "kernels") peek.kernels = value == "yes";
        if (kind == "bytes") peek.bytes = to_number(value);
    });
    return peek;
}

exec::Command cache_pack_command(const std::string& dir, const std::string& archive) {
    return spread_script({"pack", dir, archive}, std::chrono::minutes(30));
}

std::pair<std::uint64_t, std::string> parse_packed(const std::string& output) {
    std::pair<std::uint64_t, std::string> packed{0, ""};
    detail::for_each_tagged_line(output, [&packed](const std::string& kind, std::istringstream& words) {
        std::string bytes, sha;
        words >> bytes >> sha;
        if (kind == "packed") packed = {static_cast<std::uint64_t>(to_number(bytes)), sha};
    });
    return packed;
}

exec::Command cache_unpack_command(const CacheSpec& cache, const std::string& cli,
                                   const std::string& archive) {
    return spread_script({"unpack", cli, cache.script_text(), archive}, std::chrono::minutes(30));
}

}  // namespace pdctl::runtime

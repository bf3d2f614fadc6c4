#include "pdctl/report/kernel_cache_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pdctl/util/bytes.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::report {
namespace {

// "3m12s ago" by the node's own clock; "-" when unknown.
std::string ago(long long epoch, long long now) {
    if (epoch <= 0 || now <= 0) return "-";
    return util::format_elapsed(std::chrono::seconds(std::max(0LL, now - epoch))) + " ago";
}

std::string bytes(long long count) {
    return util::format_bytes(static_cast<std::uint64_t>(std::max(0LL, count)));
}

}  // namespace

std::string render_cache_status_text(const ops::CacheReport& report) {
    std::vector<std::vector<std::string>> rows = {
        {"NODE", "ROLE", "KEY", "SIZE", "BEGUN", "LAST START", "SET ASIDE"}};
    std::string notes;
    for (const auto& cache : report.caches) {
        const auto& state = cache.state;
        if (!cache.error.empty()) {
            rows.push_back({cache.node, cache.role, "?", "", "", "", ""});
            notes += fmt::format("{} {}: {}\n", cache.node, cache.role, cache.error);
            continue;
        }
        std::string aside = "-";
        if (!state.set_aside.empty()) {
            long long total = 0;
            for (const auto& old : state.set_aside) total += old.bytes;
            aside = fmt::format("{} ({})", state.set_aside.size(), bytes(total));
            for (const auto& old : state.set_aside)
                notes += fmt::format("{} {}: set aside {} ({}, {}) in {}.stale/\n", cache.node, cache.role,
                                     old.key, bytes(old.bytes),
                                     ago(old.set_aside_epoch, cache.node_now_epoch), state.dir);
        }
        const std::string last =
            state.last_result.empty()
                ? "-"
                : state.last_result + " " + ago(state.last_start_epoch, cache.node_now_epoch);
        rows.push_back({cache.node, cache.role, state.key.empty() ? "(empty)" : state.key,
                        state.key.empty() ? "-" : bytes(state.bytes),
                        ago(state.made_epoch, cache.node_now_epoch), last, aside});
    }
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], util::display_width(row[i]));
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i)
            line += i + 1 == row.size() ? row[i] : util::pad(row[i], widths[i] + 2);
        out += std::string(util::trim(line)) + "\n";
    }
    if (!notes.empty()) out += "\n" + notes;
    return out;
}

nlohmann::json cache_status_to_json(const ops::CacheReport& report) {
    nlohmann::json caches = nlohmann::json::array();
    for (const auto& cache : report.caches) {
        const auto& state = cache.state;
        nlohmann::json aside = nlohmann::json::array();
        for (const auto& old : state.set_aside)
            aside.push_back(
                {{"key", old.key}, {"bytes", old.bytes}, {"set_aside_epoch", old.set_aside_epoch}});
        caches.push_back(
            {{"node", cache.node},
             {"role", cache.role},
             {"dir", state.dir},
             {"error", cache.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(cache.error)},
             {"key", state.key.empty() ? nlohmann::json(nullptr) : nlohmann::json(state.key)},
             {"bytes", state.bytes},
             {"begun_epoch", state.made_epoch},
             {"last_start", state.last_result.empty() ? nlohmann::json(nullptr)
                                                      : nlohmann::json{{"result", state.last_result},
                                                                       {"epoch", state.last_start_epoch}}},
             {"node_now_epoch", cache.node_now_epoch},
             {"set_aside", aside}});
    }
    return {{"caches", caches}};
}

std::string render_cache_spread_text(const ops::CacheSpreadResult& result) {
    std::string out;
    for (const auto& spread : result.spreads) {
        if (!spread.to.empty())
            out += fmt::format("spread {} cache {} ({}) from {} to {} in {:.1f}s\n", spread.role, spread.key,
                               bytes(static_cast<long long>(spread.bytes)), spread.from,
                               util::join(spread.to, ", "), spread.seconds);
        for (const auto& failure : spread.failed)
            out += fmt::format("not spread {} cache {} to {}\n", spread.role, spread.key, failure);
    }
    for (const auto& line : result.without_source) out += "nothing to spread: " + line + "\n";
    for (const auto& error : result.errors) out += "unreachable: " + error + "\n";
    if (out.empty()) out = "every node holds its role's kernels for its own fingerprint: nothing to spread\n";
    return out;
}

nlohmann::json cache_spread_to_json(const ops::CacheSpreadResult& result) {
    nlohmann::json spreads = nlohmann::json::array();
    for (const auto& spread : result.spreads)
        spreads.push_back({{"role", spread.role},
                           {"key", spread.key},
                           {"from", spread.from},
                           {"bytes", spread.bytes},
                           {"to", spread.to},
                           {"failed", spread.failed},
                           {"seconds", spread.seconds}});
    return {{"spreads", spreads}, {"without_source", result.without_source}, {"errors", result.errors}};
}

}  // namespace pdctl::report

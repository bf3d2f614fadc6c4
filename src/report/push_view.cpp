#include "pdctl/report/push_view.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "pdctl/report/output.hpp"
#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/bytes.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::report {

using util::format_bytes;
using util::format_elapsed;

namespace {

using nlohmann::json;

std::string rate(std::uint64_t bytes, push::Duration elapsed) {
    if (elapsed.count() <= 0) return "";
    const auto per_second = static_cast<std::uint64_t>(static_cast<double>(bytes) * 1000.0 / elapsed.count());
    return format_bytes(per_second) + "/s";
}

// "1.0 GiB", or with --relay "8.0 GiB (1.0 GiB from here, the rest forwarded node to node)".
std::string sent(const push::PushResult& result) {
    const auto total = result.bytes_sent();
    const auto uploaded = result.bytes_uploaded();
    if (uploaded == total) return format_bytes(total);
    return fmt::format("{} ({} from here, the rest forwarded node to node)", format_bytes(total),
                       format_bytes(uploaded));
}

json file_json(const std::string& node, const push::FileOutcome& file, std::size_t done, std::size_t total) {
    json out = {{"event", "push_file"}, {"node", node},
                {"dest", file.dest},    {"status", push::to_string(file.status)},
                {"bytes", file.bytes},  {"elapsed_ms", file.elapsed.count()},
                {"done", done},         {"total", total}};
    if (!file.error.empty()) out["error"] = file.error;
    if (!file.relay_error.empty()) out["relay_error"] = file.relay_error;
    if (!file.relayed_from.empty()) out["relayed_from"] = file.relayed_from;
    return out;
}

}  // namespace

void PushPrinter::emit(const std::string& line) {
    write_text(out_, redactor_.redact(line) + "\n");
}

void PushPrinter::begin(std::size_t files, std::size_t nodes, std::uint64_t bytes_at_most) {
    if (json_) {
        emit(json{
            {"event", "push_begin"}, {"files", files}, {"nodes", nodes}, {"bytes_at_most", bytes_at_most}}
                 .dump());
        return;
    }
    emit(fmt::format("push: {} file{} to {} node{} ({} at most), sha256 checked on every node", files,
                     files == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", format_bytes(bytes_at_most)));
}

void PushPrinter::file_done(const std::string& node, const push::FileOutcome& file, std::size_t done,
                            std::size_t total) {
    if (json_) {
        emit(file_json(node, file, done, total).dump());
        return;
    }
    std::string detail;
    if (file.status == push::FileOutcome::Status::Sent) {
        detail = fmt::format("  {} in {} ({})", format_bytes(file.bytes), format_elapsed(file.elapsed),
                             rate(file.bytes, file.elapsed));
    } else if (!file.error.empty()) {
        detail = "  " + file.error;
    }
    if (!file.relay_error.empty()) detail += " (" + file.relay_error + "; sent directly)";
    if (!file.relayed_from.empty()) detail += " (forwarded by " + file.relayed_from + ")";
    emit(fmt::format("{:<8} {}/{}  {:<10} {}{}", node, done, total, push::to_string(file.status), file.dest,
                     detail));
}

void PushPrinter::node_done(const push::NodeOutcome& outcome) {
    const auto total = outcome.files.size();
    const auto placed = outcome.in_place();
    if (json_) {
        emit(json{{"event", "push_node"},
                  {"node", outcome.node},
                  {"in_place", placed},
                  {"total", total},
                  {"unreachable", outcome.unreachable},
                  {"elapsed_ms", outcome.elapsed.count()}}
                 .dump());
        return;
    }
    emit(fmt::format("{:<8} {}/{} files in place{}", outcome.node, placed, total,
                     placed == total ? "" : (outcome.unreachable ? "  (unreachable)" : "  (FAILED)")));
}

void PushPrinter::end(const push::PushResult& result) {
    std::size_t complete = 0;
    for (const auto& node : result.nodes) complete += node.in_place() == node.files.size() ? 1 : 0;
    const auto nodes = result.nodes.size();
    if (json_) {
        emit(json{{"event", "push_end"},
                  {"ok", result.all_in_place()},
                  {"nodes_complete", complete},
                  {"nodes", nodes},
                  {"bytes_sent", result.bytes_sent()},
                  {"bytes_uploaded", result.bytes_uploaded()},
                  {"elapsed_ms", result.elapsed.count()}}
                 .dump());
        return;
    }
    if (result.all_in_place()) {
        emit(fmt::format("OK    {}/{} nodes hold every file (sha256 verified); sent {} in {}", complete,
                         nodes, sent(result), format_elapsed(result.elapsed)));
        return;
    }
    emit(fmt::format("FAIL  {}/{} nodes hold every file; sent {} in {}", complete, nodes, sent(result),
                     format_elapsed(result.elapsed)));
    for (const auto& node : result.nodes) {
        for (const auto& file : node.files) {
            if (!file.in_place()) emit(fmt::format("  {}: {}: {}", node.node, file.dest, file.error));
        }
    }
}

std::string PushPrinter::summary(const push::PushResult& result) const {
    return fmt::format("{} sent to {} nodes", format_bytes(result.bytes_sent()), result.nodes.size());
}

}  // namespace pdctl::report

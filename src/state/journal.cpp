#include "pdctl/state/journal.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "embedded/state_scripts.hpp"

namespace pdctl::state::journal {
namespace {

using nlohmann::json;

// The scripts are src/state/scripts/journal_*.sh.

std::string text_field(const json& line, const char* key) {
    const auto found = line.find(key);
    return found != line.end() && found->is_string() ? found->get<std::string>() : std::string();
}

long long number_field(const json& line, const char* key, long long fallback) {
    const auto found = line.find(key);
    return found != line.end() && found->is_number_integer() ? found->get<long long>() : fallback;
}

void take_failure(RunRecord& record, const json& failed) {
    if (!failed.is_object()) return;
    record.failed_role = text_field(failed, "role");
    record.failed_node = text_field(failed, "node");
    record.failed_rank = static_cast<int>(number_field(failed, "rank", -1));
    record.failed_reason = text_field(failed, "reason");
}

}  // namespace

std::string journal_path(const std::string& cluster_dir) {
    return cluster_dir + "/journal.jsonl";
}

exec::Command append_command(const std::string& cluster_dir, std::string lines) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::journal_append), "pdctl-journal-append", cluster_dir};
    command.stdin_data = std::move(lines);
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command read_command(const std::string& cluster_dir, std::size_t max_bytes) {
    exec::Command command;
    command.argv = {"sh",
                    "-c",
                    std::string(scripts::journal_read),
                    "pdctl-journal-read",
                    cluster_dir,
                    std::to_string(max_bytes)};
    command.timeout = std::chrono::seconds(30);
    return command;
}

std::string new_run_id(std::chrono::system_clock::time_point now, unsigned random_bits) {
    // fmt 9 formats a time_point in local time: convert to UTC explicitly.
    return fmt::format("{:%Y%m%dT%H%M%S}Z-{:06x}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)),
                       random_bits & 0xffffffu);
}

std::string new_run_id() {
    return new_run_id(std::chrono::system_clock::now(), std::random_device{}());
}

std::vector<RunRecord> parse_history(const std::string& jsonl) {
    std::vector<RunRecord> runs;
    std::map<std::string, std::size_t> index;  // run id -> position in `runs`
    std::istringstream in(jsonl);
    std::string text;
    while (std::getline(in, text)) {
        const auto line = json::parse(text, nullptr, false);
        if (line.is_discarded() || !line.is_object()) continue;
        const std::string run = text_field(line, "run");
        const std::string event = text_field(line, "event");
        if (run.empty()) continue;
        auto found = index.find(run);
        if (found == index.end()) {
            // A run is listed only from its first line on: without it, who ran what is unknown.
            if (event != "record_begin") continue;
            found = index.emplace(run, runs.size()).first;
            runs.emplace_back();
            runs.back().run = run;
            runs.back().result = "unfinished";
        }
        RunRecord& record = runs[found->second];
        if (event == "record_begin") {
            record.started = text_field(line, "ts");
            record.started_epoch_ms = number_field(line, "epoch_ms", 0);
            record.verb = text_field(line, "verb");
            record.who = text_field(line, "who");
            record.config = text_field(line, "config");
            record.config_id = text_field(line, "config_id");
            record.version = text_field(line, "version");
        } else if (event == "stage_failed") {
            take_failure(record, line);
        } else if (event == "record_end") {
            record.complete = true;
            record.result = text_field(line, "result");
            record.exit_code = static_cast<int>(number_field(line, "exit_code", -1));
            record.duration_ms = number_field(line, "elapsed_ms", 0);
            record.message = text_field(line, "message");
            if (const auto failed = line.find("failed"); failed != line.end()) take_failure(record, *failed);
        }
        // An unfinished run lasted at least until its last line.
        if (!record.complete && record.started_epoch_ms > 0)
            record.duration_ms =
                std::max(record.duration_ms, number_field(line, "epoch_ms", 0) - record.started_epoch_ms);
    }
    return runs;
}

std::optional<GateResult> last_gate_result(const std::string& jsonl, const std::string& role) {
    std::optional<GateResult> last;
    std::istringstream in(jsonl);
    std::string text;
    while (std::getline(in, text)) {
        const auto line = json::parse(text, nullptr, false);
        if (line.is_discarded() || !line.is_object() || text_field(line, "role") != role) continue;
        const std::string event = text_field(line, "event");
        if (event != "stage_ready" && event != "stage_failed") continue;
        GateResult result;
        result.run = text_field(line, "run");
        result.verb = text_field(line, "verb");
        result.at = text_field(line, "ts");
        result.at_epoch_ms = number_field(line, "epoch_ms", 0);
        result.passed = event == "stage_ready";
        if (!result.passed) {
            result.reason = text_field(line, "reason");
            if (const auto node = text_field(line, "node"); !node.empty())
                result.reason =
                    fmt::format("{} rank {}: {}", node, number_field(line, "rank", 0), result.reason);
        }
        last = std::move(result);
    }
    return last;
}

std::vector<RunRecord> newest(std::vector<RunRecord> runs, std::size_t limit) {
    std::reverse(runs.begin(), runs.end());
    if (runs.size() > limit) runs.resize(limit);
    return runs;
}

}  // namespace pdctl::state::journal

#include "pdctl/ops/bench_requests.hpp"

#include <nlohmann/json.hpp>

#include "pdctl/ops/bench_record.hpp"

namespace pdctl::ops {

std::string request_lines(const BenchReport& report) {
    std::string out;
    for (const auto& row : report.rows) {
        for (const auto& level : row.levels) {
            // Which --repeat run a request belongs to: the runs' requests follow each other.
            const auto requests_of = [&](std::size_t which) {
                return static_cast<std::size_t>(level.runs[which].ok) +
                       static_cast<std::size_t>(level.runs[which].failed);
            };
            std::size_t run = 0;
            std::size_t left_in_run = level.runs.empty() ? level.records.size() : requests_of(0);
            for (const auto& record : level.records) {
                while (left_in_run == 0 && run + 1 < level.runs.size()) {
                    ++run;
                    left_in_run = requests_of(run);
                }
                if (left_in_run > 0) --left_in_run;
                nlohmann::json line = {
                    {"row", row.row.name},
                    {"level", level_key(row.row.name, level.concurrency, level.rate)},
                    {"concurrency", level.concurrency},
                    {"rate", level.rate ? nlohmann::json(*level.rate) : nlohmann::json(nullptr)},
                    {"run", run + 1},
                    {"tag", record.tag},
                    {"sent_s", record.sent_s},
                    {"ttft_s", record.ttft_s},
                    {"itl_s", record.itl_s},
                    {"e2e_s", record.e2e_s},
                    {"input_tokens", record.input_tokens},
                    {"output_tokens", record.output_tokens},
                    {"prompt_tokens", record.prompt_tokens >= 0 ? nlohmann::json(record.prompt_tokens)
                                                                : nlohmann::json(nullptr)},
                    {"cached_tokens", record.cached_tokens >= 0 ? nlohmann::json(record.cached_tokens)
                                                                : nlohmann::json(nullptr)},
                    {"ok", record.ok()},
                    {"error", record.ok() ? nlohmann::json(nullptr) : nlohmann::json(record.error)},
                };
                out += line.dump();
                out += '\n';
            }
        }
    }
    return out;
}

}  // namespace pdctl::ops

// The two nvidia-smi CSV answers the GPU checks read, in exactly the formats nvidia-smi 580 prints
// (tests/fixtures/nvidia-smi-h200-*.txt): `0, 19601, 143771` (noheader, nounits) and
// `pid, process_name, used_gpu_memory [MiB]` / `432, python3, 19592 MiB` (header, units).

#include <charconv>

#include "pdctl/doctor/facts.hpp"
#include "text.hpp"

namespace pdctl::doctor {
namespace {

std::optional<long long> to_number(std::string_view text) {
    long long value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

}  // namespace

GpuQuery parse_gpu_query(std::string_view csv) {
    GpuQuery query;
    for (const auto& line : detail::lines(csv)) {
        if (detail::trim(line).empty()) continue;
        const auto fields = detail::split_trimmed(line, ',');
        std::optional<long long> index, used, total;
        if (fields.size() == 3) {
            index = to_number(fields[0]);
            used = to_number(fields[1]);
            total = to_number(fields[2]);
        }
        if (!index || !used || !total) {
            query.error = std::string(detail::trim(line));
            return query;
        }
        query.gpus.push_back({static_cast<int>(*index), *used, *total});
    }
    return query;
}

AppsQuery parse_compute_apps(std::string_view csv) {
    AppsQuery query;
    bool header = false;
    for (const auto& line : detail::lines(csv)) {
        if (detail::trim(line).empty()) continue;
        auto fields = detail::split_trimmed(line, ',');
        if (!header) {
            // The header names the columns in the order asked for.
            if (fields.empty() || fields[0] != "pid") {
                query.error = std::string(detail::trim(line));
                return query;
            }
            header = true;
            continue;
        }
        if (fields.size() < 3 || !to_number(fields[0])) {
            query.error = std::string(detail::trim(line));
            return query;
        }
        ComputeApp app;
        app.pid = fields.front();
        // A process name may itself contain ", ": everything between the pid and the memory.
        for (std::size_t i = 1; i + 1 < fields.size(); ++i) app.name += (i > 1 ? ", " : "") + fields[i];
        std::string memory = fields.back();
        if (memory.size() > 4 && memory.ends_with(" MiB")) memory.resize(memory.size() - 4);
        app.used_mib = to_number(memory).value_or(-1);
        query.apps.push_back(std::move(app));
    }
    if (!header && query.error.empty()) query.error = "no header line";
    return query;
}

}  // namespace pdctl::doctor

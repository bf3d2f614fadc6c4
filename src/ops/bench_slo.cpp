#include "pdctl/ops/bench_slo.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "pdctl/config/duration.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

constexpr const char* kKeys = "ttft, itl, tpot, e2e";

std::string seconds_text(double seconds) {
    return config::format_duration(std::chrono::milliseconds(std::llround(seconds * 1000)));
}

}  // namespace

load::Slo parse_slo(const std::string& text) {
    load::Slo slo;
    for (const std::string& part : util::split(text, ',')) {
        const auto equals = part.find('=');
        const std::string key(util::trim(std::string_view(part).substr(0, equals)));
        const std::string value(equals == std::string::npos
                                    ? std::string_view()
                                    : util::trim(std::string_view(part).substr(equals + 1)));
        std::optional<double>* target = key == "ttft"   ? &slo.ttft_s
                                        : key == "itl"  ? &slo.itl_s
                                        : key == "tpot" ? &slo.tpot_s
                                        : key == "e2e"  ? &slo.e2e_s
                                                        : nullptr;
        if (target == nullptr)
            throw Failure(ExitCode::kUsage,
                          fmt::format("--slo {}: '{}' is not an objective ({}), e.g. ttft=2s,itl=50ms", text,
                                      key, kKeys));
        const auto duration = config::parse_duration(value);
        if (!duration || duration->count() <= 0)
            throw Failure(ExitCode::kUsage, fmt::format("--slo {}: {}={} is not a duration above 0 ({})",
                                                        text, key, value, config::kDurationForms));
        if (*target) throw Failure(ExitCode::kUsage, fmt::format("--slo {}: {} is given twice", text, key));
        *target = util::to_seconds(*duration);
    }
    if (slo.empty()) throw Failure(ExitCode::kUsage, fmt::format("--slo: name at least one of {}", kKeys));
    return slo;
}

std::string describe_slo(const load::Slo& slo) {
    std::vector<std::string> parts;
    if (slo.ttft_s) parts.push_back("TTFT ≤ " + seconds_text(*slo.ttft_s));
    if (slo.itl_s) parts.push_back("ITL p99 ≤ " + seconds_text(*slo.itl_s));
    if (slo.tpot_s) parts.push_back("TPOT ≤ " + seconds_text(*slo.tpot_s));
    if (slo.e2e_s) parts.push_back("E2E ≤ " + seconds_text(*slo.e2e_s));
    return util::join(parts, ", ");
}

}  // namespace pdctl::ops

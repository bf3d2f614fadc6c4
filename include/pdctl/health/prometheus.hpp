#pragma once
// The Prometheus text exposition format, read: `name{label="v",...} value [timestamp]` lines, comments
// and blank lines skipped. Pure.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pdctl::health {

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

// Lines that do not parse are skipped: one odd line must not hide the rest.
std::vector<Sample> parse_prometheus(const std::string& text);

// The sum of every sample named `name` (one per DP rank or per label set), or nothing if none.
std::optional<double> sum_of(const std::vector<Sample>& samples, const std::string& name);
// The largest (for a usage fraction, the fullest rank), or nothing.
std::optional<double> max_of(const std::vector<Sample>& samples, const std::string& name);

}  // namespace pdctl::health

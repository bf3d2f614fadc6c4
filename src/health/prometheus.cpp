#include "pdctl/health/prometheus.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace pdctl::health {
namespace {

// `{a="x",b="y \"q\""}` starting at text[pos] == '{'; returns the position after '}', or npos.
std::size_t read_labels(const std::string& text, std::size_t pos,
                        std::map<std::string, std::string>& labels) {
    ++pos;
    while (pos < text.size()) {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == ',')) ++pos;
        if (pos < text.size() && text[pos] == '}') return pos + 1;
        const auto eq = text.find('=', pos);
        if (eq == std::string::npos || eq + 1 >= text.size() || text[eq + 1] != '"') return std::string::npos;
        const std::string key = text.substr(pos, eq - pos);
        std::string value;
        pos = eq + 2;
        while (pos < text.size() && text[pos] != '"') {
            if (text[pos] == '\\' && pos + 1 < text.size()) {
                ++pos;
                value += text[pos] == 'n' ? '\n' : text[pos];
            } else {
                value += text[pos];
            }
            ++pos;
        }
        if (pos >= text.size()) return std::string::npos;
        labels[key] = value;
        ++pos;
    }
    return std::string::npos;
}

}  // namespace

std::vector<Sample> parse_prometheus(const std::string& text) {
    std::vector<Sample> samples;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto start = line.find_first_not_of(' ');
        if (start == std::string::npos || line[start] == '#') continue;
        Sample sample;
        auto pos = line.find_first_of("{ ", start);
        if (pos == std::string::npos) continue;
        sample.name = line.substr(start, pos - start);
        if (line[pos] == '{') {
            pos = read_labels(line, pos, sample.labels);
            if (pos == std::string::npos) continue;
        }
        const auto value_start = line.find_first_not_of(' ', pos);
        if (value_start == std::string::npos) continue;
        const auto value_text = line.substr(value_start, line.find(' ', value_start) - value_start);
        char* end = nullptr;
        sample.value = std::strtod(value_text.c_str(), &end);
        if (end == value_text.c_str()) continue;  // NaN and Inf parse; garbage does not
        samples.push_back(std::move(sample));
    }
    return samples;
}

std::optional<double> sum_of(const std::vector<Sample>& samples, const std::string& name) {
    std::optional<double> total;
    for (const auto& sample : samples)
        if (sample.name == name) total = total.value_or(0) + sample.value;
    return total;
}

std::optional<double> max_of(const std::vector<Sample>& samples, const std::string& name) {
    std::optional<double> most;
    for (const auto& sample : samples)
        if (sample.name == name) most = most ? std::max(*most, sample.value) : sample.value;
    return most;
}

}  // namespace pdctl::health

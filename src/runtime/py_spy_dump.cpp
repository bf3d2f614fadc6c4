#include "pdctl/runtime/py_spy_dump.hpp"

#include <algorithm>
#include <sstream>

namespace pdctl::runtime {

std::vector<PyProcess> parse_py_spy_dump(const std::string& text) {
    std::vector<PyProcess> processes;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.rfind("Process ", 0) == 0) {
            processes.push_back({line, {}});
        } else if (line.rfind("Thread ", 0) == 0) {
            if (processes.empty()) processes.push_back({"", {}});
            PyThread thread{line, "", {}};
            const auto open = line.find('"');
            const auto close = line.rfind('"');
            if (open != std::string::npos && close > open)
                thread.name = line.substr(open + 1, close - open - 1);
            processes.back().threads.push_back(std::move(thread));
        } else if (line.rfind("    ", 0) == 0 && !processes.empty() && !processes.back().threads.empty()) {
            const auto start = line.find_first_not_of(' ');
            // py-spy --locals prints variables indented further under their frame: not frames.
            if (start == 4) processes.back().threads.back().frames.push_back(line.substr(start));
        }
    }
    return processes;
}

std::string frame_place(const std::string& frame) {
    // "name (file:line)": drop ":line" before the closing parenthesis.
    if (frame.empty() || frame.back() != ')') return frame;
    const auto colon = frame.rfind(':');
    const auto open = frame.rfind('(');
    if (colon == std::string::npos || open == std::string::npos || colon < open) return frame;
    const auto digits = frame.substr(colon + 1, frame.size() - colon - 2);
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
        return frame;
    return frame.substr(0, colon) + ")";
}

std::vector<std::string> top_places(const std::vector<PyProcess>& processes) {
    std::vector<std::string> places;
    for (const auto& process : processes) {
        if (process.threads.empty()) continue;
        const auto main = std::find_if(process.threads.begin(), process.threads.end(),
                                       [](const PyThread& thread) { return thread.name == "MainThread"; });
        const auto& thread = main != process.threads.end() ? *main : process.threads.front();
        if (thread.frames.empty()) continue;
        const auto place = frame_place(thread.frames.front());
        if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(place);
    }
    return places;
}

}  // namespace pdctl::runtime

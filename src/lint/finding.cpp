#include "pdctl/lint/finding.hpp"

namespace pdctl::lint {

std::string to_string(Severity severity) {
    switch (severity) {
        case Severity::Error:
            return "error";
        case Severity::Warn:
            return "warn";
        case Severity::Info:
            return "info";
    }
    return "error";
}

std::string format_location(const config::SourceLocation& location) {
    if (location.file.empty()) return {};
    if (location.line <= 0) return location.file;
    std::string text = location.file + ":" + std::to_string(location.line);
    if (location.column > 0) text += ":" + std::to_string(location.column);
    return text;
}

}  // namespace pdctl::lint

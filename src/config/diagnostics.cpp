#include "pdctl/config/diagnostics.hpp"

#include <algorithm>

namespace pdctl::config {

namespace {

// "file:line:col", "file:line" or "file", depending on what is known.
std::string format_location(const SourceLocation& where) {
    std::string text = where.file;
    if (where.line > 0) {
        text += ":" + std::to_string(where.line);
        if (where.column > 0) text += ":" + std::to_string(where.column);
    }
    return text;
}

// The summary names every file involved, because one mistake in a profile can surface as
// errors in several roles that share it.
std::string summary(const std::vector<Diagnostic>& diagnostics) {
    std::vector<std::string> files;
    for (const auto& diagnostic : diagnostics) {
        const auto& file = diagnostic.where.file;
        if (!file.empty() && std::find(files.begin(), files.end(), file) == files.end())
            files.push_back(file);
    }
    const auto count = diagnostics.size();
    std::string text = std::to_string(count) + (count == 1 ? " error" : " errors");
    for (std::size_t i = 0; i < files.size(); ++i) text += (i == 0 ? " in " : ", ") + files[i];
    return text;
}

std::string join_all(const std::vector<Diagnostic>& diagnostics) {
    std::string text;
    for (const auto& diagnostic : diagnostics) text += diagnostic.format() + "\n";
    return text + summary(diagnostics);
}

}  // namespace

std::string Diagnostic::format() const {
    std::string text = format_location(where);
    text += text.empty() ? "error: " : ": error: ";
    if (!key_path.empty()) text += key_path + ": ";
    text += message;
    if (!hint.empty()) text += " (hint: " + hint + ")";
    return text;
}

void Diagnostics::error(SourceLocation where, std::string key_path, std::string message, std::string hint) {
    items_.push_back({std::move(where), std::move(key_path), std::move(message), std::move(hint)});
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_all(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace pdctl::config

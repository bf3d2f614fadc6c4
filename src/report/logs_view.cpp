#include "pdctl/report/logs_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {

std::string log_line_prefix(const std::string& node, int rank) {
    return fmt::format("[{} rank{}] ", node, rank);
}

std::string log_restarted_line(const std::string& prefix) {
    return prefix + "--- the log starts again (the unit was restarted) ---";
}

std::string log_trouble_line(const std::string& node, const std::string& unit, const std::string& trouble) {
    return fmt::format("{} ({}): {}", node, unit, trouble.empty() ? "reading its log again" : trouble);
}

std::string log_unreachable_line(const std::string& node, const std::string& transport_error) {
    return fmt::format("{}: unreachable: {}", node, transport_error);
}

void LogPrinter::begin(const std::vector<ops::LogTarget>& targets) {
    targets_ = targets;
    prefixes_.assign(targets.size(), "");
    if (targets.size() > 1)
        for (std::size_t i = 0; i < targets.size(); ++i)
            prefixes_[i] = log_line_prefix(targets[i].unit->node, targets[i].unit->rank);
}

void LogPrinter::line(std::size_t target, const std::string& text) {
    fmt::print("{}{}\n", prefixes_[target], redactor_.redact(text));
}

void LogPrinter::unreachable(std::size_t target, const std::string& transport_error) {
    fmt::print(stderr, "{}\n", log_unreachable_line(targets_[target].unit->node, transport_error));
}

void LogPrinter::trouble(std::size_t target, const std::string& trouble) {
    const auto& unit = *targets_[target].unit;
    fmt::print(stderr, "{}\n", log_trouble_line(unit.node, unit.name, trouble));
}

void LogPrinter::restarted(std::size_t target) {
    fmt::print("{}\n", log_restarted_line(prefixes_[target]));
}

std::string render_bundle_written(const std::string& path, const ops::WrittenBundle& written) {
    std::string text =
        fmt::format("bundle {}: {} files, {} KiB before compression (MANIFEST.txt lists them){}\n", path,
                    written.files, (written.bytes + 1023) / 1024,
                    written.missing.empty() ? "" : fmt::format("; {} not collected", written.missing.size()));
    if (!written.not_running.empty())
        text += fmt::format("  {} of the units do not run: only the logs they left are in it\n",
                            written.not_running.size());
    for (const auto& why : written.missing) text += fmt::format("  not collected: {}\n", why);
    return text;
}

}  // namespace pdctl::report

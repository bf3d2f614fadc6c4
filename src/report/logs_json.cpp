#include "pdctl/report/logs_json.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

namespace pdctl::report {

void LogJsonPrinter::emit(std::size_t target, const std::string& event, const std::string& key,
                          const std::string& value) {
    const auto& unit = *targets_[target].unit;
    nlohmann::json object{
        {"event", event}, {"role", unit.role}, {"node", unit.node}, {"rank", unit.rank}, {"unit", unit.name}};
    if (!key.empty()) object[key] = redactor_.redact(value);
    // A log line need not be UTF-8; replace what is not, rather than end the stream on it.
    fmt::print("{}\n", object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void LogJsonPrinter::line(std::size_t target, const std::string& text) {
    emit(target, "line", "text", text);
}

void LogJsonPrinter::unreachable(std::size_t target, const std::string& transport_error) {
    emit(target, "unreachable", "error", transport_error);
}

void LogJsonPrinter::trouble(std::size_t target, const std::string& trouble) {
    emit(target, "trouble", "error", trouble);
}

void LogJsonPrinter::restarted(std::size_t target) {
    emit(target, "restarted", "", "");
}

void LogJsonPrinter::flush() {
    std::fflush(stdout);
}

}  // namespace pdctl::report

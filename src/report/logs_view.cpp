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

}  // namespace pdctl::report

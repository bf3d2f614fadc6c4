#include "pdctl/report/ssh_masters_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {

std::string render_closed_masters_text(const std::string& dir,
                                       const std::vector<exec::ClosedMaster>& closed) {
    std::string ended, dead;
    std::size_t ended_count = 0;
    for (const auto& master : closed) {
        (master.was_running ? ended : dead) += "  " + master.destination + "\n";
        ended_count += master.was_running ? 1 : 0;
    }
    if (closed.empty()) return fmt::format("no OpenSSH masters in {}\n", dir);
    std::string text;
    if (ended_count > 0)
        text += fmt::format("closed {} OpenSSH master{} in {}:\n{}", ended_count, ended_count == 1 ? "" : "s",
                            dir, ended);
    const auto dead_count = closed.size() - ended_count;
    if (dead_count > 0)
        text += fmt::format("removed the socket{} of {} master{} that had died:\n{}",
                            dead_count == 1 ? "" : "s", dead_count, dead_count == 1 ? "" : "s", dead);
    return text;
}

nlohmann::json closed_masters_to_json(const std::string& dir, const std::vector<exec::ClosedMaster>& closed) {
    nlohmann::json doc = {
        {"control_dir", dir}, {"closed", nlohmann::json::array()}, {"dead", nlohmann::json::array()}};
    for (const auto& master : closed)
        doc[master.was_running ? "closed" : "dead"].push_back(master.destination);
    return doc;
}

}  // namespace pdctl::report

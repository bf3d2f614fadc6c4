#include "run_context.hpp"

#include <sstream>

namespace pdctl::engine {

const config::Node& RunContext::node(const std::string& name) const {
    return plan_node(plan, name);
}

std::vector<std::string> RunContext::log_lines(const plan::Unit& unit) {
    const auto answer = executor.run(node(unit.node), unit.logs);
    std::vector<std::string> lines;
    std::istringstream in(answer.out + answer.err);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::vector<std::string> RunContext::log_tail(const plan::Unit& unit) {
    auto lines = log_lines(unit);
    if (lines.size() > static_cast<std::size_t>(options.log_tail_lines))
        lines.erase(lines.begin(), lines.end() - options.log_tail_lines);
    return lines;
}

ExitCode RunContext::end_run(ExitCode code, const std::string& message, TimePoint began) {
    reporter.run_end({verb, code, message, std::chrono::duration_cast<Duration>(clock.now() - began), {}});
    return code;
}

}  // namespace pdctl::engine

#include "pdctl/report/rolling_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {

std::string render_rolling_text(const plan::RollingPlan& rolling) {
    std::string text = fmt::format("rolling restart through {} ({} at {}):\n", rolling.router,
                                   config::to_string(rolling.facts.impl), rolling.facts.url);
    for (std::size_t i = 0; i < rolling.steps.size(); ++i)
        text += fmt::format("  {:>2}. {}\n", i + 1, plan::describe(rolling.steps[i], rolling));
    text +=
        rolling.router_restart
            ? fmt::format("requests fail while {} is stopped; pdctl reports for how long\n", rolling.router)
            : fmt::format("{} keeps at least one prefill and one decode throughout\n", rolling.router);
    return text;
}

nlohmann::json rolling_to_json(const plan::RollingPlan& rolling) {
    auto steps = nlohmann::json::array();
    for (const auto& step : rolling.steps)
        steps.push_back({{"action", plan::to_string(step.action)},
                         {"stage", step.stage},
                         {"why", step.why.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.why)}});
    return {{"router", rolling.router},
            {"impl", config::to_string(rolling.facts.impl)},
            {"url", rolling.facts.url},
            {"router_restart", rolling.router_restart},
            {"steps", steps}};
}

}  // namespace pdctl::report

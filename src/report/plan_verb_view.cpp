#include "pdctl/report/plan_verb_view.hpp"

#include "pdctl/report/plan_view.hpp"
#include "pdctl/report/rolling_view.hpp"
#include "pdctl/report/transport_view.hpp"
#include "pdctl/timeline/start_history.hpp"

namespace pdctl::report {

std::string render_planned_verb_text(const ops::PlannedVerb& planned, const std::string& verb) {
    if (planned.rolling) return render_rolling_text(*planned.rolling) + "\n";
    std::string text = render_plan_text(planned.plan, verb);
    for (const auto& stage : planned.plan.stages)
        if (timeline::deadline_learned(stage.gate)) {
            text += "deadlines learned from " + planned.deadlines_source + "\n";
            break;
        }
    for (const auto& why : planned.moves_with) text += "also: " + why + "\n";
    if (!planned.transports.empty()) text += "\n" + render_transports_text(planned.transports);
    return text + "\n";
}

nlohmann::json planned_verb_to_json(const ops::PlannedVerb& planned, const std::string& verb) {
    if (planned.rolling) return rolling_to_json(*planned.rolling);
    auto doc = plan_to_json(planned.plan, verb);
    if (!planned.transports.empty()) doc["ssh_transports"] = transports_to_json(planned.transports);
    if (planned.scoped) doc["moves_with"] = planned.moves_with;
    return doc;
}

}  // namespace pdctl::report

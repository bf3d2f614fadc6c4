#include "pdctl/health/gate_answers.hpp"

#include <nlohmann/json.hpp>

#include "pdctl/health/router_worker_api.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::health {
namespace {

using json = nlohmann::json;

std::string string_field(const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

std::optional<std::string> master_not_ready(const std::string& body) {
    // No exceptions: an answer that is not JSON is an older master's plain "OK".
    const auto parsed = json::parse(body, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
    const auto ready = parsed.find("service_ready");
    if (ready == parsed.end() || (ready->is_boolean() && ready->get<bool>())) return std::nullopt;
    std::string reason = "service_ready: " + ready->dump();
    if (const auto state = string_field(parsed, "ha_state"); !state.empty())
        reason += " (ha_state " + state + ")";
    return reason;
}

std::optional<std::string> workers_not_ready(const std::string& body,
                                             const std::vector<std::string>& expected) {
    std::string error;
    const auto listed = parse_worker_list(body, error);
    if (!listed) return error;
    std::vector<std::string> missing;
    std::vector<std::string> unhealthy;
    for (const auto& url : expected) {
        const auto* entry = find_worker(*listed, url);
        if (entry == nullptr) {
            missing.push_back(url);
            continue;
        }
        if (entry->healthy) continue;
        std::string detail = entry->type;
        if (!entry->status.empty()) detail += (detail.empty() ? "status " : ", status ") + entry->status;
        unhealthy.push_back(url + (detail.empty() ? "" : " (" + detail + ")"));
    }
    if (missing.empty() && unhealthy.empty()) return std::nullopt;
    std::vector<std::string> reasons;
    if (!missing.empty()) reasons.push_back("missing from /workers: " + util::join(missing));
    if (!unhealthy.empty()) reasons.push_back("not healthy: " + util::join(unhealthy));
    return util::join(reasons, "; ");
}

}  // namespace pdctl::health

#include "pdctl/health/gate_answers.hpp"

#include <nlohmann/json.hpp>

namespace pdctl::health {
namespace {

using json = nlohmann::json;

std::string string_field(const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// Routers may list a URL with or without a trailing slash.
std::string normalised(std::string url) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
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
    const auto parsed = json::parse(body, nullptr, false);
    const json* list = nullptr;
    if (!parsed.is_discarded() && parsed.is_object()) {
        const auto found = parsed.find("workers");
        if (found != parsed.end() && found->is_array()) list = &*found;
    }
    if (list == nullptr) return "the answer is not a worker list: " + body.substr(0, 200);
    std::string missing;
    std::string unhealthy;
    for (const auto& url : expected) {
        const json* entry = nullptr;
        for (const auto& candidate : *list) {
            if (candidate.is_object() && normalised(string_field(candidate, "url")) == normalised(url)) {
                entry = &candidate;
                break;
            }
        }
        if (entry == nullptr) {
            missing += (missing.empty() ? "" : ", ") + url;
            continue;
        }
        const auto healthy = entry->find("is_healthy");
        if (healthy != entry->end() && healthy->is_boolean() && healthy->get<bool>()) continue;
        std::string detail = string_field(*entry, "worker_type");
        if (const auto status = string_field(*entry, "status"); !status.empty())
            detail += (detail.empty() ? "status " : ", status ") + status;
        unhealthy += (unhealthy.empty() ? "" : ", ") + url + (detail.empty() ? "" : " (" + detail + ")");
    }
    if (missing.empty() && unhealthy.empty()) return std::nullopt;
    std::string reason;
    if (!missing.empty()) reason = "missing from /workers: " + missing;
    if (!unhealthy.empty()) reason += (reason.empty() ? "" : "; ") + std::string("not healthy: ") + unhealthy;
    return reason;
}

}  // namespace pdctl::health

#include "pdctl/report/smoke_view.hpp"

#include <fmt/format.h>

#include "pdctl/util/durations.hpp"

namespace pdctl::report {

using nlohmann::json;

namespace {

json check_to_json(const SmokeCheck& check) {
    json out = {{"check", check.name},      {"role", check.role},     {"node", check.node},
                {"url", check.url},         {"status", check.status}, {"latency_ms", check.latency_ms},
                {"ok", check.error.empty()}};
    if (check.name == "generate") out["text"] = check.text;
    if (!check.error.empty()) out["error"] = check.error;
    return out;
}

}  // namespace

std::string render_smoke_check_line(const SmokeCheck& check) {
    if (check.name == "health_generate") {
        return check.error.empty()
                   ? fmt::format("✓ health_generate {} rank0 on {}: 200 in {} ms", check.role, check.node,
                                 check.latency_ms)
                   : fmt::format("✗ health_generate {} rank0 on {} ({}) failed after {} ms: {}", check.role,
                                 check.node, check.url, check.latency_ms, check.error);
    }
    return check.error.empty() ? fmt::format("✓ smoke: POST {} answered in {} ms: {}", check.url,
                                             check.latency_ms, check.text)
                               : fmt::format("✗ smoke: POST {} failed after {} ms: {}", check.url,
                                             check.latency_ms, check.error);
}

json smoke_to_json(const std::vector<SmokeCheck>& checks) {
    json document = {{"ok", ops::all_passed(checks)}, {"checks", json::array()}};
    for (const auto& check : checks) document["checks"].push_back(check_to_json(check));
    if (checks.empty()) return document;
    const auto& request = checks.back();
    document["url"] = request.url;
    document["latency_ms"] = request.latency_ms;
    document["status"] = request.status;
    document["text"] = request.text;
    if (!request.error.empty()) document["error"] = request.error;
    return document;
}

JunitSuite smoke_to_junit(const std::vector<SmokeCheck>& checks, const std::string& timestamp,
                          double seconds) {
    JunitSuite suite{"pdctl smoke", timestamp, "", seconds, {}, ""};
    for (const auto& check : checks) {
        JunitCase test{"pdctl.smoke." + (check.role.empty() ? std::string("router") : check.role),
                       check.name + " on " + check.node,
                       util::to_seconds(std::chrono::milliseconds(check.latency_ms)),
                       std::nullopt,
                       "",
                       std::nullopt,
                       check.text.empty() ? "" : "text: " + check.text};
        if (!check.error.empty()) {
            test.failure = check.error;
            test.failure_text = render_smoke_check_line(check) + "\n" + check.url;
        }
        suite.cases.push_back(std::move(test));
    }
    return suite;
}

}  // namespace pdctl::report

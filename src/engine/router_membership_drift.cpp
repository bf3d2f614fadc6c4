#include "pdctl/engine/router_membership_drift.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/util/strings.hpp"

namespace pdctl::engine {

std::string MembershipDrift::describe() const {
    std::vector<std::string> parts;
    if (!extra.empty())
        parts.push_back("lists " + util::join(extra, ", ") + ", which the config does not have");
    if (!missing.empty()) parts.push_back("does not list " + util::join(missing, ", "));
    return util::join(parts, "; ");
}

MembershipDrift membership_drift(const plan::RouterFacts& facts,
                                 const std::vector<health::ListedWorker>& listed) {
    MembershipDrift drift;
    const auto configured = [&](const health::ListedWorker& entry) {
        return std::any_of(facts.workers.begin(), facts.workers.end(), [&](const plan::RouterWorker& worker) {
            return util::without_trailing_slash(worker.url) == util::without_trailing_slash(entry.url) &&
                   worker.type == entry.type;
        });
    };
    for (const auto& worker : facts.workers) {
        const bool found = std::any_of(listed.begin(), listed.end(), [&](const health::ListedWorker& entry) {
            return util::without_trailing_slash(worker.url) == util::without_trailing_slash(entry.url) &&
                   worker.type == entry.type;
        });
        if (!found)
            drift.missing.push_back(fmt::format("{} ({}, {})", worker.stage, worker.url, worker.type));
    }
    for (const auto& entry : listed)
        if (!configured(entry)) drift.extra.push_back(fmt::format("{} ({})", entry.url, entry.type));
    return drift;
}

}  // namespace pdctl::engine

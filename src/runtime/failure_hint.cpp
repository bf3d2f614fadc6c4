#include "pdctl/runtime/failure_hint.hpp"

#include "log_patterns.hpp"
#include "pdctl/runtime/startup_phase.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::runtime {

std::string hint_from_log(const std::vector<std::string>& lines) {
    // The table is ordered by priority; within one entry the newest line counts.
    for (const auto& known : log_patterns::failure_hints()) {
        for (auto it = lines.rbegin(); it != lines.rend(); ++it)
            if (it->find(known.needle) != std::string::npos) return known.hint;
    }
    return {};
}

bool log_shows_own_failure(const std::vector<std::string>& lines, config::RoleKind kind) {
    const auto found = classify(lines, kind);
    return found.phase == Phase::kFailed &&
           util::lower(found.phase_line).find(log_patterns::kPeerDeathNeedle) == std::string::npos;
}

}  // namespace pdctl::runtime

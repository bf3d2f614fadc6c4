#pragma once
// A hint for the operator from the last log lines of a failed unit: the known SGLang and Mooncake
// failures (src/runtime/log_patterns.cpp).

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"

namespace pdctl::runtime {

// "" when no known failure is in `lines`.
std::string hint_from_log(const std::vector<std::string>& lines);

// Whether a dead unit's last lines show a failure of its own (an exception, a failed check) rather than
// only the news that another rank died: when several ranks of a group are found dead together, the one
// with its own failure is the cause to name.
bool log_shows_own_failure(const std::vector<std::string>& lines, config::RoleKind kind);

}  // namespace pdctl::runtime

#pragma once
// A hint for the operator from the last log lines of a failed unit: the known SGLang and Mooncake
// failures (src/runtime/log_patterns.cpp).

#include <string>
#include <vector>

namespace pdctl::runtime {

// "" when no known failure is in `lines`.
std::string hint_from_log(const std::vector<std::string>& lines);

}  // namespace pdctl::runtime

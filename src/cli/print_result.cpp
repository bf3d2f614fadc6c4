#include "print_result.hpp"

#include <fmt/format.h>

namespace pdctl::cli {

void print_result(const GlobalOptions& global, const util::Redactor& redactor,
                  const std::function<nlohmann::json()>& json, const std::function<std::string()>& text) {
    if (global.json)
        fmt::print("{}\n", redactor.redact(json().dump(2)));
    else
        fmt::print("{}", redactor.redact(text()));
}

}  // namespace pdctl::cli

#pragma once
// A verb's answer on stdout, the one way every verb prints it: with --json its JSON document (indented,
// then a newline), else its text as rendered; either redacted with the deployment's secrets. Each form
// is a function, so only the one asked for is built.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "context.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::cli {

void print_result(const GlobalOptions& global, const util::Redactor& redactor,
                  const std::function<nlohmann::json()>& json, const std::function<std::string()>& text);

}  // namespace pdctl::cli

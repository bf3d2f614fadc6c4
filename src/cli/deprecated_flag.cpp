#include "deprecated_flag.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace pdctl::cli {

std::string deprecation_line(const std::string& old_name, const std::string& new_name) {
    return "pdctl: " + old_name + " is deprecated, use " + new_name;
}

CLI::Option* add_deprecated_alias(CLI::App& command, const std::string& old_name, CLI::Option& replacement,
                                  std::string& target) {
    const std::string line = deprecation_line(old_name, replacement.get_name());
    auto* option = command.add_option_function<std::string>(
        old_name,
        // Option callbacks run once the whole command line is parsed, so the new spelling's count is
        // known here whatever the order the two were given in.
        [line, old_name, &replacement, &target](const std::string& value) {
            if (replacement.count() > 0) throw CLI::ExcludesError(old_name, replacement.get_name());
            // stderr, so that a script reading stdout (--json) is not disturbed by the notice.
            fmt::print(stderr, "{}\n", line);
            target = value;
        },
        "deprecated: " + replacement.get_name());
    option->type_name(replacement.get_type_name());
    option->group("");  // hidden from --help; completion leaves hidden options out too
    return option;
}

}  // namespace pdctl::cli

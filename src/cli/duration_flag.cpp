#include "duration_flag.hpp"

namespace pdctl::cli {

CLI::Option* add_duration_option(CLI::App& command, const std::string& name, std::string& text,
                                 const std::string& help) {
    return command.add_option(name, text, help)->type_name(kDurationMetavar);
}

}  // namespace pdctl::cli

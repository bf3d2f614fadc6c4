#include "duration_flag.hpp"

#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

CLI::Option* add_duration_option(CLI::App& command, const std::string& name, std::string& text,
                                 const std::string& help) {
    return command.add_option(name, text, help)->type_name(kDurationMetavar);
}

config::Duration parse_duration_flag(const std::string& flag, const std::string& text, ZeroDuration zero) {
    const auto value = config::parse_duration(text);
    const bool allowed = value && (zero == ZeroDuration::kAllowed ? value->count() >= 0 : value->count() > 0);
    if (!allowed)
        throw Failure(ExitCode::kUsage, flag + ": cannot read '" + text + "'",
                      std::string(zero == ZeroDuration::kAllowed ? "a duration (0 = do not wait): "
                                                                 : "a duration greater than 0: ") +
                          config::kDurationForms);
    return *value;
}

}  // namespace pdctl::cli

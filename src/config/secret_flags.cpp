#include "pdctl/config/secret_flags.hpp"

namespace pdctl::config {

std::vector<std::string> secret_flag_values(const std::vector<std::string>& argv) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string_view word = argv[i];
        for (const auto flag : kSecretFlags) {
            if (word == flag && i + 1 < argv.size()) values.push_back(argv[i + 1]);
            if (word.size() > flag.size() && word.substr(0, flag.size()) == flag && word[flag.size()] == '=')
                values.emplace_back(word.substr(flag.size() + 1));
        }
    }
    return values;
}

}  // namespace pdctl::config

// libFuzzer target: the KEY=VALUE env/profile parser (config::parse_env_file). The input is a shared
// config.env and a role profile separated by the first NUL byte (no NUL: the whole input is the
// profile), so `${VAR}` expansion from the base file is exercised as in load_cluster.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/env_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pdctl::config;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto split = input.find('\0');
    const std::string base_text(split == std::string_view::npos ? std::string_view{}
                                                                : input.substr(0, split));
    const std::string profile_text(split == std::string_view::npos ? input : input.substr(split + 1));
    const std::vector<std::string> secrets = {"HF_TOKEN", "API_KEY"};

    Diagnostics diags;
    const EnvFile base = parse_env_file("/c/config.env", base_text, {}, secrets, diags);
    const EnvFile profile = parse_env_file("/c/prefill.env", profile_text, base.vars, secrets, diags);
    for (const auto& var : profile.vars) (void)looks_secret(var.key);
    return 0;
}

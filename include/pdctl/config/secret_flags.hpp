#pragma once
// Server flags whose value is a credential, whatever the env says: `args: [--api-key, sk-...]` is shown
// in plans, status and the journal as [REDACTED], and `export k8s` moves the value into a Secret. (The
// server still gets it on its command line: the environment is the place for secrets, which
// `pdctl doctor --static` cannot enforce for every server.)

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::config {

inline constexpr std::array<std::string_view, 4> kSecretFlags = {"--api-key", "--admin-api-key", "--hf-token",
                                                                 "--token"};

// The values an argv gives these flags, as `--flag VALUE` or `--flag=VALUE`.
std::vector<std::string> secret_flag_values(const std::vector<std::string>& argv);

}  // namespace pdctl::config

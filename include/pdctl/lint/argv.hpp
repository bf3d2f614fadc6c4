#pragma once
// Reading a server's final command line the way its own parser will. argparse (SGLang, the router)
// and gflags (mooncake_master) both let a later occurrence of a flag replace an earlier one, which
// is how a profile's EXTRA_ARGS overrides what pdctl generated; so the rules must never look at the
// first occurrence, or at the config value, when the argv says otherwise.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pdctl::lint {

using FlagNames = std::initializer_list<std::string_view>;  // aliases of one option: {"--tp-size", "--tp"}

// The value the program sees for a flag: the last `--flag value` or `--flag=value` of any alias.
// nullopt when the flag is absent, or when its last occurrence has no value (ends argv).
std::optional<std::string> flag_value(const std::vector<std::string>& argv, FlagNames names);

// flag_value as a decimal integer; nullopt when absent or not a number.
std::optional<int> flag_int(const std::vector<std::string>& argv, FlagNames names);

// Whether a store_true flag is given (`--flag`, or `--flag=true`), the last occurrence winning.
bool flag_set(const std::vector<std::string>& argv, FlagNames names);

// Every occurrence of a repeatable flag (argparse action="append", nargs="+"), each with the words
// that follow it up to the next option: the router's `--prefill URL [PORT]` and `--decode URL`.
std::vector<std::vector<std::string>> flag_occurrences(const std::vector<std::string>& argv, FlagNames names);

// KEY=VALUE pairs given as `docker run -e/--env` options, in order.
std::vector<std::pair<std::string, std::string>> container_env(const std::vector<std::string>& options);

}  // namespace pdctl::lint

#pragma once
// Profile/env files in the format the old bash setup used:
//   # comment
//   KEY=value
//   export KEY="double quoted ${OTHER} with \" escapes"
//   KEY='single quoted, taken literally'
//   KEY=${EARLIER_KEY}/suffix            # expansion from earlier keys, then from `base`
// One parser for config.env and the per-role profiles.

#include <string>
#include <vector>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/model.hpp"

namespace pdctl::config {

struct EnvFile {
    std::string path;
    std::vector<EnvVar> vars;  // in file order; a repeated key keeps its last value (at the first position)
    std::vector<std::string> referenced;  // the names its $VAR/${VAR} found, in this file or the base
};

// Parses `content` (read from `path`). `${VAR}` / `$VAR` expand from earlier keys of this file, then from
// `base` (e.g. the shared config.env); an undefined variable is an error. `secret_keys` marks extra keys
// as secrets. Errors go to `diags` with file:line:col; parsing continues past them.
EnvFile parse_env_file(const std::string& path, const std::string& content, const std::vector<EnvVar>& base,
                       const std::vector<std::string>& secret_keys, Diagnostics& diags);

// True for keys that name secrets by convention: containing TOKEN, SECRET, PASSWORD (any case).
bool looks_secret(const std::string& key);

}  // namespace pdctl::config

#pragma once
// The flags pdctl itself puts on a server's command line, apart from the role's own `args:` and
// EXTRA_ARGS: what doctor PD019 compares a duplicate against, and what docs/migrating.md lists.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::plan {

struct GeneratedFlag {
    std::string name;   // "--tp-size"
    std::string value;  // "32"; "" for a flag without a value
};

// The `--` flags of `unit`'s argv before the role's own args (which every builder appends last), in
// order, each with the word after it (or after `=`). Empty when the argv does not end with role.args.
std::vector<GeneratedFlag> generated_flags(const Unit& unit, const config::Role& role);

// The config key behind a flag pdctl generates for a role of `kind`, for messages and docs:
// "tp_size: (default: nodes × gpus_per_node)".
std::string flag_source(config::RoleKind kind, const std::string& flag);

}  // namespace pdctl::plan

#include "scope_flags.hpp"

#include <CLI/CLI.hpp>

namespace pdctl::cli {

void add_scope_flags(CLI::App& command, plan::Scope& scope) {
    command.add_option("--role", scope.roles, "act on this role only, every group of it (repeatable)")
        ->type_name("ROLE")
        ->allow_extra_args(false);  // one value per flag: `--role decode -- cmd` must not eat `cmd`
    command
        .add_option("--group", scope.groups,
                    "act on this group only: a role's first group has the role's name, group K is NAME-K "
                    "(repeatable)")
        ->type_name("GROUP")
        ->allow_extra_args(false);
}

}  // namespace pdctl::cli

#include "scope_flags.hpp"

#include <CLI/CLI.hpp>

namespace pdctl::cli {

void add_scope_flags(CLI::App& command, plan::Scope& scope) {
    command.add_option("--role", scope.roles, "act on this role only, every group of it (repeatable)")
        ->type_name("ROLE");
    command
        .add_option("--group", scope.groups,
                    "act on this group only: a role's first group has the role's name, group K is NAME-K "
                    "(repeatable)")
        ->type_name("GROUP");
}

}  // namespace pdctl::cli

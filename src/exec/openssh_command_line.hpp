#pragma once
// What every `ssh` pdctl starts is told on its command line, apart from the policy file (-F): the
// options that hold whatever the operator's ssh config says (host-key checking, no prompts, the
// master's socket and how long it stays).

#include <string>
#include <vector>

#include "pdctl/exec/openssh_executor.hpp"

namespace pdctl::exec::detail {

// `-o NAME=VALUE` pairs, for a master on `socket` (one that stays for `options.persist` when
// `persistent`, else one that ends with this run).
std::vector<std::string> openssh_session_options(const OpenSshOptions& options, const std::string& socket,
                                                 bool persistent);

}  // namespace pdctl::exec::detail

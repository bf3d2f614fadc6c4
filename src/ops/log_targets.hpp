#pragma once
// Which units `pdctl logs` reads: the positional ROLE, --role/--group, then --node and --rank.

#include <vector>

#include "pdctl/ops/logs.hpp"

namespace pdctl::ops {

// The positional ROLE names a `roles:` entry (every group) or one group (prefill-2). Nothing named:
// a usage error, or, for `--bundle`, every unit (an empty scope).
plan::Scope logs_scope(const plan::Plan& plan, const LogsRequest& request,
                       bool every_unit_when_unnamed = false);

// The units of `scoped` that --node and --rank keep; throws Failure(kUsage) when none is left.
std::vector<LogTarget> log_targets(const Deployment& deployment, const plan::Plan& scoped,
                                   const LogsRequest& request);

}  // namespace pdctl::ops

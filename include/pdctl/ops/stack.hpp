#pragma once
// `pdctl stack`: a Python stack dump (py-spy dump) of every rank of the selected sglang groups, in
// parallel: which rank of a hung group the others wait for (sglang #12121, #6864).

#include <string>
#include <vector>

#include "pdctl/exec/command.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct RankDump {
    std::string stage;  // the group's stage name
    int rank = 0;
    std::string node;
    exec::CommandResult result;  // of the py-spy dump

    bool ok() const { return result.ok(); }
};

// 0 when every rank was dumped; 3 when a node could not be reached; otherwise 13.
ExitCode stack_exit_code(const std::vector<RankDump>& dumps);

// One dump per rank of every sglang group in `scope`, in plan order. Throws Failure (usage) when the
// scope holds no sglang group.
std::vector<RankDump> dump_stacks(const Deployment& deployment, const plan::Scope& scope);

}  // namespace pdctl::ops

#pragma once
// What each running SGLang group's rank 0 says of itself, for `doctor`'s consistency checks across
// workers (doctor/worker_consistency.hpp): `/server_info`, or `/get_server_info` on versions before it.

#include <vector>

#include "pdctl/doctor/worker_consistency.hpp"
#include "pdctl/ops/deployment.hpp"

namespace pdctl::ops {

// Every prefill and decode group, read at once; a group that does not answer says why.
std::vector<doctor::WorkerInfo> read_worker_infos(const Deployment& deployment);

}  // namespace pdctl::ops

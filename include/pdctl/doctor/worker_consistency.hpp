#pragma once
// `pdctl doctor` (live) across the running workers: what every prefill and decode group's rank 0 says of
// itself (`/server_info`, `/get_server_info` on older versions) must agree wherever a request crosses
// from one to the other. Pure: the answers in, findings out (PAIR001-PAIR007, docs/doctor.md).
//   PAIR001 model path, PAIR002 page size, PAIR003 KV cache dtype, PAIR004 transfer backend: a prefill
//   and a decode the router pairs differ; the first KV transfer between them fails or hangs.
//   PAIR005 TP sizes differ and not both run with the staging buffer (PD016's rule, from live values).
//   PAIR006 two prefill groups on one host announce the same bootstrap port.
//   PAIR007 a running group's MOONCAKE_LOCAL_HOSTNAME (as its profile sets it) is a loopback address
//   on a host that is not: Mooncake would announce an address its peers reach themselves at.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/lint/finding.hpp"

namespace pdctl::doctor {

struct WorkerInfo {
    std::string role;  // the group, as the plan names it ("prefill-2")
    std::string mode;  // prefill | decode
    std::string node;
    std::string host;             // the address it serves on (its bootstrap server's host too)
    nlohmann::json server_info;   // the answer; null when there was none
    std::string unavailable;      // why not: "no answer: connection refused", "HTTP 503"
    bool staging_buffer = false;  // SGLANG_DISAGG_STAGING_BUFFER set in its profile (as PD016 reads it)
    // MOONCAKE_LOCAL_HOSTNAME (or LOCAL_HOSTNAME) as its profile sets it; "" when it sets neither.
    std::string mooncake_local_hostname;
};

std::vector<lint::Finding> check_worker_consistency(const std::vector<WorkerInfo>& workers);

}  // namespace pdctl::doctor

#pragma once
// `pdctl logs --bundle FILE`: everything an incident ticket needs in one archive — every selected
// unit's current log and the log it left when last stopped or replaced, the newest runs of the journal,
// and (added by the CLI, which renders them) the plan and `status --json`. Secrets are redacted in
// every file before it is written.

#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/logs.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct BundleFile {
    std::string path;  // inside the archive, e.g. logs/n3/pd-x-prefill-2.log
    std::string content;
};

struct Bundle {
    std::vector<BundleFile> files;
    std::vector<std::string> missing;      // what could not be collected, and why (MANIFEST.txt lists it)
    std::vector<std::string> not_running;  // units without a current log: only their kept one is in it
    ExitCode code = ExitCode::kOk;         // kUnreachable when a node or the coordinator could not be read
};

// The journal runs a bundle holds: enough for "what happened before", small enough to attach.
inline constexpr std::size_t kBundleJournalRuns = 10;
// The newest lines of a unit's current log (a kept log is bounded on the node already).
inline constexpr int kBundleCurrentLogLines = 100000;

// The units of `request` (ROLE, --role/--group, --node, --rank; none named: every unit), read in
// parallel. Throws Failure(kUsage) for a selection that names no unit.
Bundle collect_bundle(const Deployment& deployment, const LogsRequest& request);

// `files` as a gzip-compressed tar at `path`, every file under `top_dir/`, written by the system's
// tar from a private temporary directory. Throws Failure(kUsage) when `path` cannot be written.
void write_bundle(const std::string& path, const std::string& top_dir, const std::vector<BundleFile>& files);

}  // namespace pdctl::ops

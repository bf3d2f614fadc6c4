#pragma once
// `pdctl logs --bundle FILE`: everything an incident ticket needs in one archive — every selected
// unit's current log and the log it left when last stopped or replaced, the newest runs of the journal,
// the plan and `status --json` (rendered by the report layer, handed in), and MANIFEST.txt listing them.
// Secrets are redacted in every file before it is written.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/logs.hpp"
#include "pdctl/ops/status.hpp"
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

// What a bundle holds as `pdctl plan` and `pdctl status --json` print it (the report layer renders them),
// and the time it is stamped with once collected.
struct BundleRenderings {
    std::function<std::string(const plan::Plan&)> plan_text;
    std::function<std::string(const engine::ClusterStatus&)> status_json;
    std::function<std::string()> now_utc;  // 2026-11-29T08:12:03: in MANIFEST.txt and the top folder's name
};

struct BundleRequest {
    LogsRequest logs;  // the units: ROLE, --role/--group, --node, --rank
    std::string path;  // the archive, .tar.gz
};

struct WrittenBundle {
    std::size_t files = 0;  // MANIFEST.txt included
    std::size_t bytes = 0;  // before compression
    std::vector<std::string> missing;
    std::vector<std::string> not_running;
    ExitCode code = ExitCode::kOk;  // as Bundle::code
};

// Throws Failure (usage) when `path` cannot be written; before any node is asked, since collecting every
// log takes a while.
void check_bundle_path(const std::string& path);

// The bundle of `request` written to its path: collect_bundle, then the plan, status and MANIFEST.txt,
// then write_bundle.
WrittenBundle write_incident_bundle(const Deployment& deployment, const BundleRequest& request,
                                    const BundleRenderings& renderings);

}  // namespace pdctl::ops

#pragma once
// The journal as history and timeline read it: from the coordinator node, or, when the coordinator is
// unreachable, this machine's own copy (with exit 3 to say so).

#include <string>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct JournalText {
    std::string text;    // JSON Lines, the newest part of the journal
    std::string source;  // "n1:/var/lib/pdctl/x/journal.jsonl" or "<local copy> (this machine's runs only)"
    ExitCode code = ExitCode::kOk;  // kUnreachable when the local copy stood in
};

// Throws Failure (internal) when the coordinator answered but the journal could not be read.
JournalText read_journal(const Deployment& deployment);

// This machine's copy only (plan: it touches no node).
JournalText read_local_journal(const config::Cluster& cluster);

}  // namespace pdctl::ops

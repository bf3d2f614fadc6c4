#pragma once
// Where a run's journal record goes: appended to <state_dir>/<cluster>/journal.jsonl on the coordinator
// node, and to this machine's copy in $XDG_STATE_HOME/pdctl/<cluster>.jsonl (default
// ~/.local/state/pdctl/), so an operator keeps their own runs even when the coordinator is gone.

#include <filesystem>
#include <string>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"

namespace pdctl::state {

// "n1:/var/lib/pdctl/kimi3/journal.jsonl"
std::string journal_location(const config::Cluster& cluster);
// Empty when neither XDG_STATE_HOME nor HOME is set.
std::filesystem::path local_journal_path(const std::string& cluster);
// The records the coordinator has not received yet (it was unreachable when they were written), beside
// the local copy: <cluster>.pending.jsonl. Empty path as above.
std::filesystem::path pending_journal_path(const std::string& cluster);
// What that file holds ("" when nothing is pending).
std::string pending_journal(const std::string& cluster);

// Appends the pending records, then `lines`, to the coordinator's journal in one command, and `lines`
// to this machine's copy. A coordinator that cannot be written keeps `lines` pending, to go with the next
// record that reaches it. Failures are warnings on stderr: the run already happened, and its exit code
// must say how it went, not whether the journal could be written.
void write_journal(exec::Executor& executor, const config::Cluster& cluster, const std::string& lines);

}  // namespace pdctl::state

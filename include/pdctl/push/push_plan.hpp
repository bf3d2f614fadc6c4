#pragma once
// What `pdctl push` does, as pure data: which declared files go to which node, and the fixed remote
// scripts that check, place and verify them (paths and checksums only ever as positional parameters).
// The executor-facing part is push/pusher.hpp.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"

namespace pdctl::push {

// The files one node must hold, in `files:` order.
struct NodeFiles {
    config::Node node;
    std::vector<config::FileSpec> files;
};

// Every node that gets at least one file, in `nodes:` order: a file with neither `roles` nor `nodes`
// goes to every node; otherwise to the union of the roles' nodes and the named nodes.
std::vector<NodeFiles> plan_push(const config::Cluster& cluster);

// What a node holds at one path before the push.
struct RemoteFile {
    enum class Kind { Missing, Regular, Other };  // Other: a directory, socket, ... is in the way
    Kind kind = Kind::Missing;
    int mode = 0;
    std::string sha256;  // lowercase hex; empty when the file exists but cannot be read
};

// One round trip per node: for each path, whether it is a regular file, its mode and its sha256.
exec::Command probe_command(const std::vector<std::string>& paths);
// One RemoteFile per path, or nullopt when the output does not have exactly one valid line per path.
std::optional<std::vector<RemoteFile>> parse_probe(const std::string& output, std::size_t paths);

// `mkdir -p` of every parent directory, in one command.
exec::Command make_directories_command(const std::vector<std::string>& dests);

// Checks the uploaded temporary file's sha256 on the node, then renames it over `dest` (atomic: readers
// see the old file or the complete new one). On a mismatch it deletes the temporary file, prints the
// node's checksum on stderr and exits kChecksumMismatch.
inline constexpr int kChecksumMismatch = 3;
exec::Command verify_and_rename_command(const std::string& temp, const std::string& sha256,
                                        const std::string& dest);

// Sets the mode of a file whose content is already right.
exec::Command chmod_command(const std::string& dest, int mode);

// `rm -f` of an uploaded temporary file that will not be verified (its source could not be read).
exec::Command remove_temporary_command(const std::string& temp);

// "<dest>.pdctl-tmp-<suffix>": next to the destination, so the rename never crosses filesystems.
std::string temporary_name(const std::string& dest, const std::string& suffix);

}  // namespace pdctl::push

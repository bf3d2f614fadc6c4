#pragma once
// `push --relay`: one file to many nodes at the speed of one copy. pdctl uploads it to the first node
// of a chain over SSH, as any push; that node forwards every chunk to the next as it arrives, and so on
// down the chain (scripts/relay.sh: plain TCP between the nodes, on the address each node binds, its
// compute address), so the source's uplink carries the file once and every link once. Each node checks
// the sha256 itself before the file takes its place (verify.sh), exactly as a direct push does; a node
// the chain did not reach is left to the caller, which sends it directly: nothing is lost to a broken
// hop.

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"

namespace pdctl::push {

// One node of a chain, in order: where its copy arrives (a temporary name next to the destination).
struct RelayLeg {
    const config::Node* node = nullptr;
    std::string temp;
    bool arrived = false;  // the whole file is at `temp` (its sha256 not checked yet)
    std::string error;     // why not
    std::uint64_t bytes = 0;
    std::string from;  // the node that forwarded it; "" for the chain's first node, uploaded from here
};

struct RelayOptions {
    int port = 29600;  // TCP port of the hops; one file at a time uses it
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
};

exec::Command relay_listen_command(const std::string& bind, int port, const std::string& temp,
                                   std::uint64_t size, const config::Node* next, int next_port);
exec::Command relay_follow_command(const std::string& temp, std::uint64_t size, const config::Node& next,
                                   int port);
exec::Command relay_wait_command(const std::string& temp, std::chrono::seconds timeout);

// Streams `source` (`size` bytes, given `mode`) down `legs` in order; each leg says whether its copy
// arrived. Listeners are started from the end of the chain back to its head, so every hop's next node
// is listening before data flows.
void relay_file(exec::Executor& executor, const std::string& source, std::uint64_t size, int mode,
                std::vector<RelayLeg>& legs, const RelayOptions& options);

// The same from a file that is already whole on a node (`head`, at `path`): every leg receives it
// (`pdctl cache spread`: a kernel cache from the node that compiled it to its peers).
void relay_from_node(exec::Executor& executor, const config::Node& head, const std::string& path,
                     std::uint64_t size, int mode, std::vector<RelayLeg>& legs, const RelayOptions& options);

}  // namespace pdctl::push

#pragma once
// Runs a push plan: every node in parallel (bounded), each node's files one after the other on its
// connection. Per file: skip it when the node already has the same sha256 (and mode); else upload to a
// temporary name, check the sha256 on the node, rename into place.

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/push/relay.hpp"

namespace pdctl::push {

using Duration = std::chrono::milliseconds;

// A source file on this machine. Its size is known before any node is touched; its SHA-256 may still be
// computing (local_sources.hpp hashes beside the nodes' probes and uploads): get() waits for it, and
// throws std::runtime_error when the file could not be read to its end.
struct LocalFile {
    std::shared_future<std::string> sha256;
    std::uint64_t size = 0;
    static LocalFile hashed(std::string sha256, std::uint64_t size);  // a digest already known
};

struct FileOutcome {
    enum class Status { Sent, Identical, ModeFixed, Failed, Skipped };
    std::string source;
    std::string dest;
    Status status = Status::Skipped;
    std::uint64_t bytes = 0;  // sent over the wire
    Duration elapsed{0};
    std::string error;         // Failed/Skipped: why
    std::string relay_error;   // --relay: why the chain did not bring it (then it was sent directly)
    std::string relayed_from;  // --relay: the node that forwarded it ("" = sent from here)
    bool in_place() const {
        return status == Status::Sent || status == Status::Identical || status == Status::ModeFixed;
    }
};

struct NodeOutcome {
    std::string node;
    std::vector<FileOutcome> files;  // in the node's plan order
    bool unreachable = false;        // the node could not be reached or the connection broke
    Duration elapsed{0};
    std::size_t in_place() const;
};

struct PushResult {
    std::vector<NodeOutcome> nodes;  // in plan order
    Duration elapsed{0};
    std::uint64_t bytes_sent() const;      // arrived on the nodes, from here or forwarded by a peer
    std::uint64_t bytes_uploaded() const;  // left this process: bytes_sent() less what peers forwarded
    bool all_in_place() const;
    bool any_unreachable() const;
};

// Called from the node workers, one call at a time (the pusher serialises them).
class PushObserver {
  public:
    virtual ~PushObserver() = default;
    // `done` of `total` files of this node are settled (in place or failed).
    virtual void file_done(const std::string& node, const FileOutcome& file, std::size_t done,
                           std::size_t total) = 0;
    virtual void node_done(const NodeOutcome& outcome) = 0;
};

struct PushOptions {
    std::size_t max_parallel_nodes = 16;
    std::function<bool()> interrupted = [] { return false; };
    // Per-file upload deadline: a floor plus the time at a pessimistic rate, so a 1 GiB wheel on a slow
    // link is not cut off while a stuck small file still fails in minutes.
    Duration min_upload_timeout{std::chrono::minutes(2)};
    std::uint64_t slowest_bytes_per_second = 5ull << 20;
    // --relay: each file streams once through a chain of the nodes that lack it (push/relay.hpp).
    std::optional<RelayOptions> relay;
};

// `local` maps each FileSpec::source of the plan to what was read locally.
PushResult run_push(exec::Executor& executor, const std::vector<NodeFiles>& plan,
                    const std::map<std::string, LocalFile>& local, PushObserver& observer,
                    const PushOptions& options = {});

std::string to_string(FileOutcome::Status status);  // "sent", "identical", "mode fixed", "failed", "skipped"

}  // namespace pdctl::push

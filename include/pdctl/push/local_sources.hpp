#pragma once
// The push's source files on this machine, hashed on one background thread in the order the nodes
// need them. A node's probe and upload need no local digest (only the comparison with a copy already on
// the node and the verification after the upload do), so the local pass over a model-sized file runs
// beside them instead of before any node is touched: measured in bench/notes.md.

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "pdctl/push/pusher.hpp"

namespace pdctl::push {

struct SourceFile {
    std::string path;
    std::uint64_t size = 0;  // as checked before the push (the caller reports an unreadable source)
};

class LocalSources {
  public:
    // Starts hashing `sources` (distinct paths) in this order.
    explicit LocalSources(const std::vector<SourceFile>& sources);
    // Stops the hashing at its next chunk (a digest not yet computed then throws) and joins the thread.
    ~LocalSources();
    LocalSources(const LocalSources&) = delete;
    LocalSources& operator=(const LocalSources&) = delete;

    // Every source, by path; each LocalFile::sha256 is ready when its hashing is done.
    const std::map<std::string, LocalFile>& files() const { return files_; }

  private:
    std::map<std::string, LocalFile> files_;
    std::atomic<bool> stop_{false};
    std::thread hasher_;
};

}  // namespace pdctl::push

#pragma once
// The KV path as the bench reads it: every SGLang group's rank-0 /metrics before, during and after the
// load. Counters are read every few seconds while the load runs, so a counter that went back (the
// server restarted and its counters began again) is noticed and its rise still counted; transfer
// speed and latency are read as histograms (the mean over the load) where the server exports them so,
// else as the gauges of the last transfer.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pdctl/health/http_prober.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/deployment.hpp"

namespace pdctl::ops {

inline constexpr const char* kTransferFailedCounter = "sglang:num_transfer_failed_reqs_total";
inline constexpr const char* kBootstrapFailedCounter = "sglang:num_bootstrap_failed_reqs_total";

// Every SGLang group of the plan, unread.
std::vector<KvCounters> kv_groups(const Deployment& deployment);

// One read of every group at once. `phase`: the first read sets the starting values; later reads add
// what each counter rose by since the read before (a counter below its last value began again: all of
// its new value is a rise, and the reset is noted).
enum class KvRead { kFirst, kDuring, kLast };
void read_kv_counters(health::HttpProber& prober, std::vector<KvCounters>& groups, KvRead phase);

// Reads every `every` on a thread of its own until stopped (the destructor stops it and waits).
class KvWatch {
  public:
    KvWatch(health::HttpProber& prober, std::vector<KvCounters>& groups, std::chrono::milliseconds every);
    ~KvWatch();
    KvWatch(const KvWatch&) = delete;
    KvWatch& operator=(const KvWatch&) = delete;

  private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;  // last: it starts once the members above exist
};

// The soak's verdict on the KV path, appended to `problems`: a counter that rose, and a group whose
// counters could not be read (unless `allow_unverified`: then it is named in `notes` only).
void judge_kv(const std::vector<KvCounters>& groups, bool allow_unverified,
              std::vector<std::string>& problems, std::vector<std::string>& notes);

}  // namespace pdctl::ops

#pragma once
// `pdctl bench`: load through the cluster's own router, measured as sglang.bench_serving measures it
// (docs/bench.md), and `--soak`: continuous load that passes only if no request failed and no group's
// KV transfer or bootstrap failure counter went up.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/load/load_runner.hpp"
#include "pdctl/load/row_stats.hpp"
#include "pdctl/load/slo.hpp"
#include "pdctl/load/workload.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/rate_search.hpp"

namespace pdctl::ops {

// What a row's requests are (load/workload.hpp, docs/bench.md "Workloads").
enum class BenchWorkload { kUnique, kSharedPrefix, kMultiTurn, kDataset };

// One row of a bench table: a request shape.
struct BenchRow {
    // A row of unique prompts by default, as `{"medium", 1680, 512}`: implicit, so a list of rows reads
    // as the table it is.
    // cppcheck-suppress noExplicitConstructor
    BenchRow(std::string row_name = {}, int input = 0, int output = 0)
        : name(std::move(row_name)), input_tokens(input), output_tokens(output) {}
    std::string name;
    int input_tokens = 0;  // unique; shared-prefix and multi-turn: the whole first prompt; dataset: 0
    int output_tokens = 0;
    BenchWorkload workload = BenchWorkload::kUnique;
    load::SharedPrefixShape shared_prefix;
    load::MultiTurnShape multi_turn;
    std::shared_ptr<const load::DatasetShape> dataset;  // shared by the levels: a file can be large
};

// A row of unique prompts: `input_tokens` ids each, answered with `output_tokens`.
BenchRow unique_row(std::string name, int input_tokens, int output_tokens);

// The scenarios of --scenario besides validation: a shared system prompt, and conversations.
BenchRow shared_prefix_row();
BenchRow multi_turn_row();

// The original experiment's validation table (docs/bench.md): warm-up, medium, long input.
std::vector<BenchRow> validation_rows();
// The row a soak runs by default: the experiment's long input.
BenchRow soak_row();

struct BenchSpec {
    std::string scenario;  // "validation", "custom" (--input/--output) or the bench file's name
    std::vector<BenchRow> rows;
    std::vector<int> concurrency{1};  // closed-loop levels, or (one value) the cap with `rates`
    std::vector<double> rates;        // open-loop levels, requests a second; empty: a closed loop
    bool ramp = false;                // --rate ramp: search the saturation point (needs `slo`)
    double burstiness = 1.0;          // the arrivals' gamma shape: 1 is Poisson
    std::optional<load::Slo> slo;     // goodput per level, and the test of a ramp
    int requests = 0;                 // per level; 0 with no duration: max(10, 4 × concurrency)
    std::chrono::milliseconds duration{0};
    int warmup = 2;  // per row and level, not counted
    std::chrono::milliseconds timeout{std::chrono::minutes(10)};
    std::uint64_t seed = 1;
    bool seed_given = false;  // false: the seed was drawn for this run, so its prompts are its own
    int repeat = 1;           // each level is run this many times; the gate compares every run's requests
    bool soak = false;        // judge by failures and the groups' KV failure counters
    std::string router;       // the router role to send through; empty: the first
    // An SGLang-compatible endpoint pdctl did not start (http://HOST:PORT): load goes there, and no
    // group's counters are read.
    std::string base_url;
    bool flush_cache = false;       // POST /flush_cache to every group before each row
    bool allow_unverified = false;  // a soak may pass with groups whose counters could not be read
};

struct BenchLevel {
    int concurrency = 1;
    std::optional<double> rate;
    load::RowStats stats;                      // over every run of the level
    std::vector<load::RequestRecord> records;  // every measured request of every run, in send order
    std::vector<load::RowStats> runs;          // one per --repeat run
    // The requests of each tag ("turn 2" of a multi-turn row), in tag order; empty when untagged.
    std::vector<std::pair<std::string, load::RowStats>> by_tag;
    // What the workload means the prefix cache to serve: 0 for unique prompts; the model's share for
    // shared prefixes and conversations; none for a dataset (it depends on the texts).
    std::optional<double> predicted_cache_share;
    std::optional<load::Goodput> goodput;  // with an SLO
    // The prefix cache served more of the prompts than the workload means it to: TTFT and prefill
    // rates look better than the deployment is.
    bool cache_flagged = false;
    bool cancelled = false;
};

struct BenchRowResult {
    BenchRow row;
    std::vector<BenchLevel> levels;
};

// One group's rank-0 /metrics before, during and after the load: the KV path's failure counters, and
// its transfer speed and latency (ops/bench_kv.hpp).
struct KvCounters {
    std::string role;
    std::string node;
    std::string url;
    std::string unavailable;  // why there are no numbers (metrics off: 404; no answer)
    double transfer_failed_before = 0;
    double transfer_failed_after = 0;
    double bootstrap_failed_before = 0;
    double bootstrap_failed_after = 0;
    // What each counter rose by over the load, resets included (a restarted server's counters begin
    // again at 0: its whole new value is a rise).
    double transfer_failed_rise = 0;
    double bootstrap_failed_rise = 0;
    int resets = 0;                             // reads that found a counter lower than the read before
    std::optional<double> transfer_speed_gb_s;  // mean over the load (histogram), else the last transfer's
    std::optional<double> transfer_latency_ms;
    // The histograms' sums and counts at the first read, for the mean over the load.
    double speed_sum_before = 0, speed_count_before = 0, latency_sum_before = 0, latency_count_before = 0;
    bool read_once = false;  // some read answered: the numbers above mean something
    double transfer_failed_increase() const { return transfer_failed_rise; }
    double bootstrap_failed_increase() const { return bootstrap_failed_rise; }
};

// A prefill or decode group as the bench ran against it: what makes two runs comparable.
struct BenchGroup {
    std::string role;
    std::string mode;  // prefill | decode
    int nodes = 0;
    int tp = 0;
    int gpus = 0;
    std::string image;  // empty for process units
};

struct BenchReport {
    std::string cluster;
    std::string config;   // the plan's fingerprint
    std::string version;  // pdctl's
    std::string started;  // UTC, 2026-12-04T19:30:17Z
    std::vector<BenchGroup> groups;
    std::string router_role;
    std::string url;  // where the requests went
    int prefill_gpus = 0;
    int decode_gpus = 0;
    BenchSpec spec;
    std::vector<BenchRowResult> rows;
    std::vector<KvCounters> kv;               // every sglang group
    std::vector<std::string> problems;        // why it did not pass; empty: passed
    std::vector<std::string> notes;           // what a reader must know of the numbers (a cache hit, a flush)
    std::vector<RateSearch::Step> ramp;       // --rate ramp: every rate tried, in order
    std::optional<double> saturation_rps;     // the highest rate whose goodput held
    std::optional<double> first_failing_rps;  // the lowest rate above it that did not
    bool cancelled = false;
    bool passed() const { return problems.empty(); }
};

// Where a run is, for the live line: the row and level, and the load runner's progress.
struct BenchProgress {
    const BenchRow* row = nullptr;
    int concurrency = 1;
    std::optional<double> rate;
    load::LoadProgress load;
};

// Throws Failure (usage) when the config has no router or the named one is not a router.
BenchReport run_bench(const Deployment& deployment, const BenchSpec& spec,
                      const std::function<void(const BenchProgress&)>& progress);

}  // namespace pdctl::ops

#pragma once
// What makes a bench run evidence: the journal keeps every run (its record, bench_record.hpp), and a
// later run is compared with one of them (`--vs RUN`) or with a record kept as a file (`--baseline`).

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct BenchBaseline {
    std::string against;  // "run 20261204T193017Z-3f9c1e (2026-12-04T19:30:17Z)" or the file's path
    nlohmann::json record;
};

// The bench record of run `run` in the journal, or with "last" of the newest bench run that passed (exit
// 0: no failed request, no regression) with the scenario and rows (names and shapes) of `spec`. Throws
// Failure (usage) naming what the journal holds when there is no such run, and naming what differs
// when the run named is not the same workload as `spec`.
BenchBaseline baseline_from_journal(const Deployment& deployment, const std::string& run,
                                    const BenchSpec& spec);
// A record `pdctl --json bench` wrote. Throws Failure (usage) for a file that cannot be read or parsed,
// or whose scenario or rows differ from `spec`'s (naming what differs).
BenchBaseline baseline_from_file(const std::string& path, const BenchSpec& spec);

// A bench run's journal record: begun when the run begins (its time and duration are the run's), written
// by finish(): who, the config's fingerprint, pdctl's version, the bench record, and how it ended. A
// coordinator that cannot be written keeps it pending (state/journal_writer.hpp).
class BenchJournal {
  public:
    explicit BenchJournal(const Deployment& deployment);
    ~BenchJournal();
    BenchJournal(const BenchJournal&) = delete;
    BenchJournal& operator=(const BenchJournal&) = delete;

    const std::string& run_id() const;
    void finish(const BenchReport& report, ExitCode code, const std::string& message);

  private:
    struct Record;
    const Deployment& deployment_;
    std::unique_ptr<Record> record_;
};

}  // namespace pdctl::ops

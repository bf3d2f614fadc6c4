#include "pdctl/ops/bench_evidence.hpp"

#include <fmt/format.h>

#include <fstream>
#include <random>
#include <sstream>

#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/ops/journaling_reporter.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/operator_identity.hpp"

namespace pdctl::ops {
namespace {

using json = nlohmann::json;

constexpr const char* kBenchEvent = "bench";

}  // namespace

BenchBaseline baseline_from_journal(const Deployment& deployment, const std::string& run) {
    const auto journal = read_journal(deployment);
    std::istringstream lines(journal.text);
    std::string line;
    BenchBaseline found;
    int bench_runs = 0;
    std::string newest;
    while (std::getline(lines, line)) {
        if (line.find("\"event\":\"bench\"") == std::string::npos) continue;
        const json entry = json::parse(line, nullptr, false);
        if (!entry.is_object() || entry.value("event", "") != kBenchEvent || !entry.contains("record"))
            continue;
        ++bench_runs;
        const std::string id = entry.value("run", "");
        newest = id;
        if (run == "last" || id == run) {
            found.against = fmt::format("run {} ({})", id, entry.value("ts", ""));
            found.record = entry["record"];
        }
    }
    if (found.record.is_null())
        throw Failure(ExitCode::kUsage,
                      bench_runs == 0
                          ? fmt::format("--vs {}: the journal ({}) has no bench run yet", run, journal.source)
                          : fmt::format("--vs {}: no bench run of that id in the journal ({}; {} bench "
                                        "runs, the newest {}): `pdctl history` lists them",
                                        run, journal.source, bench_runs, newest));
    return found;
}

BenchBaseline baseline_from_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Failure(ExitCode::kUsage, fmt::format("--baseline {}: cannot read it", path));
    std::stringstream text;
    text << in.rdbuf();
    json record = json::parse(text.str(), nullptr, false);
    if (record.is_discarded())
        throw Failure(ExitCode::kUsage,
                      fmt::format("--baseline {}: not JSON (write one with `pdctl --json bench`)", path));
    recorded_levels(record, "--baseline " + path);  // refuses what is not a bench record
    return {path, std::move(record)};
}

struct BenchJournal::Record {
    engine::SilentReporter unseen;  // a record without engine events
    JournalingReporter journal;
    Record(const Deployment& deployment, std::string run_id)
        : journal(unseen, deployment.redactor,
                  {std::move(run_id), "bench", state::current_operator().who(), deployment.cluster.name,
                   deployment.plan.fingerprint, PDCTL_VERSION}) {}
};

BenchJournal::BenchJournal(const Deployment& deployment)
    : deployment_(deployment),
      record_(std::make_unique<Record>(
          deployment, state::journal::new_run_id(std::chrono::system_clock::now(), std::random_device{}()))) {
}

BenchJournal::~BenchJournal() = default;

const std::string& BenchJournal::run_id() const {
    return record_->journal.run().run_id;
}

void BenchJournal::finish(const BenchReport& report, ExitCode code, const std::string& message) {
    record_->journal.journal_event(kBenchEvent, {{"record", bench_record(report)}});
    state::write_journal(*deployment_.executor, deployment_.cluster, record_->journal.finish(code, message));
}

}  // namespace pdctl::ops

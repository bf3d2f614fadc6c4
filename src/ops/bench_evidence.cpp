#include "pdctl/ops/bench_evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/ops/journaling_reporter.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/operator_identity.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

using json = nlohmann::json;

constexpr const char* kBenchEvent = "bench";

}  // namespace

namespace {

struct JournaledBench {
    std::string run;
    std::string ts;
    json record;
    int exit_code = -1;  // from the run's record_end; -1: the journal does not say
};

// Every bench run of the journal, oldest first, with how each ended.
std::vector<JournaledBench> journaled_benches(const std::string& text) {
    std::vector<JournaledBench> benches;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const bool bench = line.find("\"event\":\"bench\"") != std::string::npos;
        if (!bench && line.find("\"event\":\"record_end\"") == std::string::npos) continue;
        const json entry = json::parse(line, nullptr, false);
        if (!entry.is_object()) continue;
        const std::string id = entry.value("run", "");
        if (bench && entry.value("event", "") == kBenchEvent && entry.contains("record")) {
            benches.push_back({id, entry.value("ts", ""), entry["record"], -1});
        } else if (entry.value("event", "") == "record_end") {
            for (auto& known : benches)
                if (known.run == id) known.exit_code = entry.value("exit_code", -1);
        }
    }
    return benches;
}

// Why the newest bench run was not taken for `--vs last`, so the refusal says what the journal holds.
std::string why_not(const JournaledBench& bench, const BenchSpec& spec) {
    if (bench.exit_code != 0)
        return bench.exit_code < 0 ? "it did not finish" : fmt::format("it exited {}", bench.exit_code);
    return util::join(bench_shape_differences(bench.record, spec), "; ");
}

}  // namespace

BenchBaseline baseline_from_journal(const Deployment& deployment, const std::string& run,
                                    const BenchSpec& spec) {
    const auto journal = read_journal(deployment);
    const auto benches = journaled_benches(journal.text);
    if (benches.empty())
        throw Failure(ExitCode::kUsage,
                      fmt::format("--vs {}: the journal ({}) has no bench run yet", run, journal.source));
    if (run == "last") {
        // The newest run that passed (no failed request, no regression) with the same scenario and rows:
        // a failed or regressed run is no baseline, and another shape is another workload.
        for (auto it = benches.rbegin(); it != benches.rend(); ++it)
            if (it->exit_code == 0 && bench_shape_differences(it->record, spec).empty())
                return {fmt::format("run {} ({})", it->run, it->ts), it->record};
        throw Failure(
            ExitCode::kUsage,
            fmt::format("--vs last: no passing bench run of scenario {} with these rows in the journal "
                        "({}; {} bench runs, the newest {} not taken: {}): `pdctl history` lists them",
                        spec.scenario, journal.source, benches.size(), benches.back().run,
                        why_not(benches.back(), spec)));
    }
    const auto found = std::find_if(benches.rbegin(), benches.rend(),
                                    [&](const JournaledBench& bench) { return bench.run == run; });
    if (found == benches.rend())
        throw Failure(ExitCode::kUsage,
                      fmt::format("--vs {}: no bench run of that id in the journal ({}; {} bench "
                                  "runs, the newest {}): `pdctl history` lists them",
                                  run, journal.source, benches.size(), benches.back().run));
    if (const auto differences = bench_shape_differences(found->record, spec); !differences.empty())
        throw Failure(ExitCode::kUsage,
                      fmt::format("--vs {}: not the same workload as this run, nothing to compare: {}", run,
                                  util::join(differences, "; ")));
    return {fmt::format("run {} ({})", found->run, found->ts), found->record};
}

BenchBaseline baseline_from_file(const std::string& path, const BenchSpec& spec) {
    std::ifstream in(path);
    if (!in) throw Failure(ExitCode::kUsage, fmt::format("--baseline {}: cannot read it", path));
    std::stringstream text;
    text << in.rdbuf();
    json record = json::parse(text.str(), nullptr, false);
    if (record.is_discarded())
        throw Failure(ExitCode::kUsage,
                      fmt::format("--baseline {}: not JSON (write one with `pdctl --json bench`)", path));
    recorded_levels(record, "--baseline " + path);  // refuses what is not a bench record
    if (const auto differences = bench_shape_differences(record, spec); !differences.empty())
        throw Failure(ExitCode::kUsage,
                      fmt::format("--baseline {}: not the same workload as this run, nothing to compare: {}",
                                  path, util::join(differences, "; ")));
    return {path, std::move(record)};
}

struct BenchJournal::Record {
    engine::SilentReporter unseen;  // a record without engine events
    JournalingReporter journal;
    Record(const Deployment& deployment, std::string run_id)
        : journal(unseen, deployment.redactor,
                  {std::move(run_id), "bench", state::current_operator().who(), deployment.cluster.name,
                   deployment.plan.fingerprint, PDCTL_VERSION, ""}) {}
};

BenchJournal::BenchJournal(const Deployment& deployment)
    : deployment_(deployment), record_(std::make_unique<Record>(deployment, state::journal::new_run_id())) {}

BenchJournal::~BenchJournal() = default;

const std::string& BenchJournal::run_id() const {
    return record_->journal.run().run_id;
}

void BenchJournal::finish(const BenchReport& report, ExitCode code, const std::string& message) {
    record_->journal.journal_event(kBenchEvent, {{"record", bench_record(report)}});
    state::write_journal(*deployment_.executor, deployment_.cluster, record_->journal.finish(code, message));
}

}  // namespace pdctl::ops

#include "pdctl/ops/past_runs.hpp"

#include <fmt/format.h>

#include "pdctl/ops/journal_source.hpp"

namespace pdctl::ops {
namespace {

const timeline::RunTimeline& pick(const std::vector<timeline::RunTimeline>& runs, const std::string& selector,
                                  const std::string& source) {
    std::string error;
    const auto* run = timeline::find_run(runs, selector, error);
    if (!run)
        throw Failure(ExitCode::kUsage, fmt::format("timeline: {} ({})", error, source),
                      "`pdctl history` lists the runs; a start records its timeline from this version on");
    return *run;
}

}  // namespace

PastRuns read_past_runs(const Deployment& deployment, std::size_t limit) {
    const auto journal = read_journal(deployment);
    auto runs = state::journal::parse_history(journal.text);
    const std::size_t count = limit == 0 ? runs.size() : limit;  // before `runs` is moved from
    runs = state::journal::newest(std::move(runs), count);
    return {std::move(runs), journal.source, journal.code};
}

PastTimelines read_past_timelines(const Deployment& deployment) {
    const auto journal = read_journal(deployment);
    return {timeline::read_timelines(journal.text), journal.source, journal.code};
}

PastTimelines read_timelines_to_show(const Deployment& deployment, const std::string& run,
                                     const std::string& vs) {
    auto past = read_past_timelines(deployment);
    std::vector<timeline::RunTimeline> shown{pick(past.runs, run, past.source)};
    if (!vs.empty()) shown.push_back(pick(past.runs, vs, past.source));
    past.runs = std::move(shown);
    return past;
}

LearnedHistory local_start_history(const config::Cluster& cluster) {
    const auto journal = read_local_journal(cluster);
    return {timeline::start_history(timeline::read_timelines(journal.text)), journal.source};
}

}  // namespace pdctl::ops

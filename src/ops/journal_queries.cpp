#include "pdctl/ops/journal_queries.hpp"

#include "pdctl/ops/journal_source.hpp"

namespace pdctl::ops {

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

LearnedHistory local_start_history(const config::Cluster& cluster) {
    const auto journal = read_local_journal(cluster);
    return {timeline::start_history(timeline::read_timelines(journal.text)), journal.source};
}

}  // namespace pdctl::ops

#include "pdctl/ops/push.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "pdctl/engine/clock.hpp"
#include "pdctl/lint/finding.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/push/local_sources.hpp"
#include "pdctl/push/push_plan.hpp"

namespace pdctl::ops {
namespace {

// Each distinct source in the order of the files list, checked readable before any node is touched: one
// that cannot be opened is a config error at its line. Hashing them is LocalSources' work, beside the push.
std::vector<push::SourceFile> read_sources(const config::Cluster& cluster) {
    std::vector<push::SourceFile> sources;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < cluster.files.size(); ++i) {
        const auto& file = cluster.files[i];
        if (!seen.insert(file.source).second) continue;
        std::string why;
        std::error_code error;
        std::uintmax_t size = 0;
        if (std::filesystem::is_directory(file.source, error))
            why = "is a directory";
        else if (const std::ifstream readable(file.source, std::ios::binary); !readable)
            why = std::strerror(errno);
        else if (size = std::filesystem::file_size(file.source, error); error)
            why = error.message();
        if (!why.empty()) {
            const auto where = lint::format_location(file.source_where);
            throw Failure(ExitCode::kUsage,
                          fmt::format("{}{}files[{}].source: cannot read {}: {} (nothing was pushed)", where,
                                      where.empty() ? "" : ": ", i, file.source, why),
                          "relative sources start at the cluster file's directory");
        }
        sources.push_back({file.source, static_cast<std::uint64_t>(size)});
    }
    return sources;
}

std::string journal_line(const std::string& node, const push::FileOutcome& file) {
    auto line = fmt::format("push {} {} {}", node, file.dest, push::to_string(file.status));
    if (file.bytes > 0) line += fmt::format(" ({} bytes)", file.bytes);
    if (!file.error.empty()) line += ": " + file.error;
    if (!file.relay_error.empty()) line += " (" + file.relay_error + "; sent directly)";
    if (!file.relayed_from.empty()) line += " (forwarded by " + file.relayed_from + ")";
    return line;
}

// Shows and journals each outcome.
class JournaledPushView : public push::PushObserver {
  public:
    JournaledPushView(PushView& view, engine::Reporter& journal) : view_(view), journal_(journal) {}
    void file_done(const std::string& node, const push::FileOutcome& file, std::size_t done,
                   std::size_t total) override {
        view_.file_done(node, file, done, total);
        journal_.note(journal_line(node, file));
    }
    void node_done(const push::NodeOutcome& outcome) override { view_.node_done(outcome); }

  private:
    PushView& view_;
    engine::Reporter& journal_;
};

}  // namespace

ExitCode run_push(const Deployment& deployment, PushView& view,
                  const std::optional<std::vector<std::string>>& nodes,
                  std::optional<push::RelayOptions> relay) {
    auto plan = push::plan_push(deployment.cluster);
    if (nodes)
        std::erase_if(plan, [&](const push::NodeFiles& entry) {
            return std::find(nodes->begin(), nodes->end(), entry.node.name) == nodes->end();
        });
    const push::LocalSources sources(read_sources(deployment.cluster));
    const auto& local = sources.files();
    std::uint64_t at_most = 0;
    for (const auto& node : plan)
        for (const auto& file : node.files) at_most += local.at(file.source).size;

    return run_copy_verb(deployment, "push", [&](engine::Reporter& journal) {
        view.begin(deployment.cluster.files.size(), plan.size(), at_most);
        JournaledPushView observer(view, journal);
        push::PushOptions options;
        options.interrupted = [] { return engine::interrupted(); };
        options.relay = relay;
        const auto result = push::run_push(*deployment.executor, plan, local, observer, options);
        view.end(result);
        return CopyOutcome{result.all_in_place(), result.any_unreachable(), result.elapsed,
                           view.summary(result)};
    });
}

}  // namespace pdctl::ops

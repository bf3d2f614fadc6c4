#include "pdctl/ops/pull.hpp"

#include <fmt/format.h>

#include "pdctl/engine/clock.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

std::string journal_line(const std::string& node, const pull::ImageOutcome& image) {
    auto line = fmt::format("pull {} {} {}", node, image.image.image, pull::to_string(image.status));
    if (!image.id.empty()) line += " " + image.id;
    if (!image.error.empty()) line += ": " + image.error;
    return line;
}

// Shows and journals each outcome.
class JournaledPullView : public pull::PullObserver {
  public:
    JournaledPullView(PullView& view, engine::Reporter& journal) : view_(view), journal_(journal) {}
    void image_done(const std::string& node, const pull::ImageOutcome& image, std::size_t done,
                    std::size_t total) override {
        view_.image_done(node, image, done, total);
        journal_.note(journal_line(node, image));
    }
    void node_done(const pull::NodeOutcome& outcome) override { view_.node_done(outcome); }
    void still_pulling(const std::string& node, const pull::ImageRef& image,
                       pull::Duration elapsed) override {
        view_.still_pulling(node, image, elapsed);
    }

  private:
    PullView& view_;
    engine::Reporter& journal_;
};

}  // namespace

PullSelection select_pulls(const Deployment& deployment, const plan::Scope& scope,
                           const std::vector<std::string>& nodes) {
    // A role means every group of it, as on every verb: the filter takes the groups' names.
    std::vector<std::string> groups;
    if (!scope.empty())
        for (const auto& stage : plan::scope_plan(deployment.plan, scope, "pull").plan.stages)
            groups.push_back(stage.role);
    const pull::PullFilter filter{groups, nodes};
    const auto unknown = pull::unknown_names(deployment.cluster, filter);
    if (!unknown.empty())
        throw Failure(ExitCode::kUsage,
                      "pull: no " + util::join(unknown, ", ") + " in " + deployment.cluster.config_path,
                      "`pdctl plan` lists the roles and nodes");
    return {pull::plan_pull(deployment.cluster, filter), !filter.roles.empty() || !filter.nodes.empty()};
}

ExitCode run_pull(const Deployment& deployment, const std::vector<pull::NodeImages>& plan,
                  pull::PullOptions options, PullView& view) {
    return run_copy_verb(deployment, "pull", [&](engine::Reporter& journal) {
        view.begin(plan);
        JournaledPullView observer(view, journal);
        options.interrupted = [] { return engine::interrupted(); };
        const auto result = pull::run_pull(*deployment.executor, plan, observer, options);
        view.end(result);
        for (const auto& mismatch : result.mismatches)
            journal.note(fmt::format("pull {} {} differs: {} (most nodes: {})", mismatch.node,
                                     mismatch.image.image, mismatch.id, mismatch.majority));
        return CopyOutcome{result.all_pulled(), result.any_unreachable(), result.elapsed,
                           view.summary(result)};
    });
}

}  // namespace pdctl::ops

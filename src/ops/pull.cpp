#include "pdctl/ops/pull.hpp"

#include <fmt/format.h>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/mutating_run.hpp"

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

ExitCode run_pull(const Deployment& deployment, const std::vector<pull::NodeImages>& plan,
                  pull::PullOptions options, PullView& view) {
    engine::SilentReporter silent;
    engine::install_interrupt_handlers();
    return run_mutating_verb(deployment, silent, "pull", [&](engine::Reporter& journal) {
        journal.run_begin("pull", deployment.plan);
        view.begin(plan);
        JournaledPullView observer(view, journal);
        options.interrupted = [] { return engine::interrupted(); };
        const auto result = pull::run_pull(*deployment.executor, plan, observer, options);
        view.end(result);
        for (const auto& mismatch : result.mismatches)
            journal.note(fmt::format("pull {} {} differs: {} (most nodes: {})", mismatch.node,
                                     mismatch.image.image, mismatch.id, mismatch.majority));
        engine::RunSummary summary;
        summary.verb = "pull";
        summary.elapsed = result.elapsed;
        // Unreachable first, as everywhere (docs/exit-codes.md): the operator fixes the link, then reruns.
        summary.code = engine::interrupted()      ? ExitCode::kInterrupted
                       : result.all_pulled()      ? ExitCode::kOk
                       : result.any_unreachable() ? ExitCode::kUnreachable
                                                  : ExitCode::kStageFailed;
        summary.message = view.summary(result);
        journal.run_end(summary);
        return summary.code;
    });
}

}  // namespace pdctl::ops

#include "pdctl/report/pull_view.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::report {
using util::format_elapsed;

namespace {

using nlohmann::json;

std::string describe_status(pull::ImageOutcome::Status status) {
    return status == pull::ImageOutcome::Status::Present ? "already present" : pull::to_string(status);
}

// Each image's ID as most of its nodes have it, in first-seen order.
std::vector<std::pair<pull::ImageRef, std::string>> image_ids(const pull::PullResult& result) {
    std::vector<std::pair<pull::ImageRef, std::vector<pull::NodeId>>> seen;
    for (const auto& node : result.nodes) {
        for (const auto& image : node.images) {
            auto at =
                std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == image.image; });
            if (at == seen.end()) at = seen.insert(seen.end(), {image.image, {}});
            at->second.push_back({node.node, image.id});
        }
    }
    std::vector<std::pair<pull::ImageRef, std::string>> ids;
    for (const auto& [image, nodes] : seen) ids.emplace_back(image, pull::majority_id(nodes));
    return ids;
}

std::size_t count_status(const pull::PullResult& result, pull::ImageOutcome::Status status) {
    std::size_t count = 0;
    for (const auto& node : result.nodes)
        for (const auto& image : node.images) count += image.status == status ? 1 : 0;
    return count;
}

std::size_t complete_nodes(const pull::PullResult& result) {
    std::set<std::string> differing;
    for (const auto& mismatch : result.mismatches) differing.insert(mismatch.node);
    std::size_t complete = 0;
    for (const auto& node : result.nodes)
        complete += node.ok_count() == node.images.size() && !differing.count(node.node) ? 1 : 0;
    return complete;
}

}  // namespace

std::vector<std::string> pull_summary_lines(const pull::PullResult& result) {
    std::vector<std::string> lines;
    const auto complete = complete_nodes(result);
    const auto counts = fmt::format("pulled {}, already present {}, failed {}; {}",
                                    count_status(result, pull::ImageOutcome::Status::Pulled),
                                    count_status(result, pull::ImageOutcome::Status::Present),
                                    count_status(result, pull::ImageOutcome::Status::Failed) +
                                        count_status(result, pull::ImageOutcome::Status::Skipped),
                                    format_elapsed(result.elapsed));
    lines.push_back(fmt::format("{}  {}/{} nodes hold every image with the same ID; {}",
                                result.all_pulled() ? "OK  " : "FAIL", complete, result.nodes.size(),
                                counts));
    for (const auto& [image, id] : image_ids(result))
        if (!id.empty()) lines.push_back(fmt::format("  {}  id {}", image.image, pull::short_id(id)));
    for (const auto& node : result.nodes)
        for (const auto& image : node.images)
            if (!image.ok())
                lines.push_back(fmt::format("  {}: {}: {}", node.node, image.image.image, image.error));
    for (const auto& mismatch : result.mismatches)
        lines.push_back(fmt::format("  {}: {}: image ID {} differs from {} (the ID most nodes have)",
                                    mismatch.node, mismatch.image.image, pull::short_id(mismatch.id),
                                    pull::short_id(mismatch.majority)));
    return lines;
}

void PullPrinter::emit(const std::string& line) {
    fmt::print(out_, "{}\n", redactor_.redact(line));
    std::fflush(out_);
}

void PullPrinter::begin(const std::vector<pull::NodeImages>& plan) {
    std::vector<pull::ImageRef> images;
    std::size_t pulls = 0;
    for (const auto& node : plan) {
        pulls += node.images.size();
        for (const auto& image : node.images)
            if (std::find(images.begin(), images.end(), image) == images.end()) images.push_back(image);
    }
    if (json_) {
        json names = json::array();
        for (const auto& image : images) names.push_back({{"image", image.image}, {"cli", image.cli}});
        emit(json{{"event", "pull_begin"}, {"images", names}, {"nodes", plan.size()}, {"pulls", pulls}}
                 .dump());
        return;
    }
    emit(fmt::format(
        "pull: {} image{} on {} node{} ({} pulls, nodes in parallel), image IDs compared "
        "across nodes",
        images.size(), images.size() == 1 ? "" : "s", plan.size(), plan.size() == 1 ? "" : "s", pulls));
}

void PullPrinter::image_done(const std::string& node, const pull::ImageOutcome& image, std::size_t done,
                             std::size_t total) {
    if (json_) {
        json out = {{"event", "pull_image"},
                    {"node", node},
                    {"image", image.image.image},
                    {"cli", image.image.cli},
                    {"status", pull::to_string(image.status)},
                    {"id", image.id},
                    {"elapsed_ms", image.elapsed.count()},
                    {"done", done},
                    {"total", total}};
        if (!image.error.empty()) out["error"] = image.error;
        emit(out.dump());
        return;
    }
    const auto detail =
        image.ok() ? fmt::format("id {}  in {}", pull::short_id(image.id), format_elapsed(image.elapsed))
                   : image.error;
    emit(fmt::format("{:<8} {}/{}  {:<15} {}  {}", node, done, total, describe_status(image.status),
                     image.image.image, detail));
}

void PullPrinter::node_done(const pull::NodeOutcome& outcome) {
    const auto total = outcome.images.size();
    const auto ok = outcome.ok_count();
    if (json_) {
        emit(json{{"event", "pull_node"},
                  {"node", outcome.node},
                  {"ok", ok},
                  {"total", total},
                  {"unreachable", outcome.unreachable},
                  {"elapsed_ms", outcome.elapsed.count()}}
                 .dump());
        return;
    }
    // With one image the image line already says it all.
    if (total > 1 || outcome.unreachable)
        emit(fmt::format("{:<8} {}/{} images in {}{}", outcome.node, ok, total,
                         format_elapsed(outcome.elapsed),
                         ok == total ? "" : (outcome.unreachable ? "  (unreachable)" : "  (FAILED)")));
}

void PullPrinter::still_pulling(const std::string& node, const pull::ImageRef& image,
                                pull::Duration elapsed) {
    if (json_) {
        emit(json{{"event", "pull_progress"},
                  {"node", node},
                  {"image", image.image},
                  {"elapsed_ms", elapsed.count()}}
                 .dump());
        return;
    }
    emit(fmt::format("{:<8} still pulling {} ({})", node, image.image, format_elapsed(elapsed)));
}

void PullPrinter::end(const pull::PullResult& result) {
    if (json_) {
        json ids = json::object();
        for (const auto& [image, id] : image_ids(result)) ids[image.image] = id;
        json differing = json::array();
        for (const auto& m : result.mismatches)
            differing.push_back(
                {{"node", m.node}, {"image", m.image.image}, {"id", m.id}, {"majority", m.majority}});
        emit(json{{"event", "pull_end"},
                  {"ok", result.all_pulled()},
                  {"nodes_complete", complete_nodes(result)},
                  {"nodes", result.nodes.size()},
                  {"pulled", count_status(result, pull::ImageOutcome::Status::Pulled)},
                  {"present", count_status(result, pull::ImageOutcome::Status::Present)},
                  {"failed", count_status(result, pull::ImageOutcome::Status::Failed) +
                                 count_status(result, pull::ImageOutcome::Status::Skipped)},
                  {"ids", ids},
                  {"mismatches", differing},
                  {"elapsed_ms", result.elapsed.count()}}
                 .dump());
        return;
    }
    for (const auto& line : pull_summary_lines(result)) emit(line);
}

std::string PullPrinter::summary(const pull::PullResult& result) const {
    return pull_summary_lines(result).front();
}

}  // namespace pdctl::report

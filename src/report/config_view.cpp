#include "pdctl/report/config_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {
namespace {

std::string run_line(const ops::KeptConfig& kept) {
    return fmt::format("# config {} of run {} ({} by {} at {}, {})", kept.id.substr(0, 12), kept.run.run,
                       kept.run.verb, kept.run.who, kept.run.started, kept.run.result);
}

nlohmann::json run_json(const ops::KeptConfig& kept) {
    return {{"run", kept.run.run},         {"verb", kept.run.verb},     {"who", kept.run.who},
            {"started", kept.run.started}, {"result", kept.run.result}, {"config_id", kept.id},
            {"entry", kept.bundle.entry}};
}

}  // namespace

std::string render_kept_config_text(const ops::KeptConfig& kept, const std::vector<ops::ShownFile>& files) {
    std::string text = run_line(kept) + "\n# secret values are shown as [REDACTED]\n";
    for (const auto& file : files) {
        text += fmt::format("\n# {}\n{}", file.path, file.content);
        if (!file.content.empty() && file.content.back() != '\n') text += "\n";
    }
    if (!kept.bundle.pushed.empty()) {
        text += "\n# files: pushed to the nodes, as they were (sha256)\n";
        for (const auto& file : kept.bundle.pushed)
            text += fmt::format("#   {} -> {}  {}\n", file.source, file.dest,
                                file.sha256.empty() ? "(could not be read)" : file.sha256);
    }
    return text;
}

nlohmann::json kept_config_to_json(const ops::KeptConfig& kept, const std::vector<ops::ShownFile>& files) {
    nlohmann::json document = run_json(kept);
    document["files"] = nlohmann::json::array();
    for (const auto& file : files)
        document["files"].push_back({{"path", file.path}, {"content", file.content}});
    document["pushed"] = nlohmann::json::array();
    for (const auto& file : kept.bundle.pushed)
        document["pushed"].push_back({{"source", file.source}, {"dest", file.dest}, {"sha256", file.sha256}});
    return document;
}

std::string render_restored_text(const ops::KeptConfig& kept, const std::string& entry) {
    return fmt::format(
        "restored the config of run {} ({} files, mode 0600): {}\n"
        "  pdctl diff -c {}       what would change against what runs\n",
        kept.run.run, kept.bundle.files.size(), entry, entry);
}

nlohmann::json restored_to_json(const ops::KeptConfig& kept, const std::string& entry) {
    nlohmann::json document = run_json(kept);
    document["restored"] = entry;
    document["files"] = kept.bundle.files.size();
    return document;
}

}  // namespace pdctl::report

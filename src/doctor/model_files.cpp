#include "pdctl/doctor/model_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>

#include "embedded/doctor_scripts.hpp"
#include "pdctl/util/bytes.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::doctor {
namespace {

constexpr std::size_t kFilesNamed = 5;  // per node and kind; the rest is counted

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t from = 0;
    for (auto tab = line.find('\t'); tab != std::string::npos; tab = line.find('\t', from)) {
        fields.push_back(line.substr(from, tab - from));
        from = tab + 1;
    }
    fields.push_back(line.substr(from));
    return fields;
}

std::string named(const std::vector<std::string>& files) {
    std::vector<std::string> shown(files.begin(), files.begin() + std::min(files.size(), kFilesNamed));
    auto text = util::join(shown, ", ");
    if (files.size() > kFilesNamed) text += fmt::format(" and {} more", files.size() - kFilesNamed);
    return text;
}

}  // namespace

exec::Command model_files_command(const std::vector<std::string>& dirs) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::model_files), "pdctl-model-files"};
    command.argv.insert(command.argv.end(), dirs.begin(), dirs.end());
    command.timeout = std::chrono::seconds(30);  // the listing itself is bounded at 15 s per directory
    return command;
}

std::map<std::string, ModelListing> parse_model_files(const std::string& out) {
    std::map<std::string, ModelListing> listings;
    std::istringstream lines(out);
    std::string line;
    ModelListing* current = nullptr;
    std::string current_dir;
    bool ended = false;
    std::map<std::string, ModelListing> read;
    while (std::getline(lines, line)) {
        const auto fields = split_tabs(line);
        if (fields.size() == 3 && fields[0] == "model") {
            current_dir = fields[1];
            current = &read[current_dir];
            current->present = fields[2] == "present";
        } else if (fields.size() == 3 && fields[0] == "file" && current) {
            std::uint64_t size = 0;
            const auto& text = fields[2];
            if (std::from_chars(text.data(), text.data() + text.size(), size).ec == std::errc())
                current->files[fields[1]] = size;
        } else if (line == "end") {
            ended = true;
        }
    }
    if (ended) listings = std::move(read);
    return listings;
}

std::uint64_t parse_node_memory(const std::string& out) {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
        const auto fields = split_tabs(line);
        std::uint64_t bytes = 0;
        if (fields.size() == 2 && fields[0] == "memory" &&
            std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), bytes).ec == std::errc())
            return bytes;
    }
    return 0;
}

std::optional<std::string> model_memory_problem(const std::map<std::string, ModelListing>& listings,
                                                std::uint64_t memory) {
    std::uint64_t total = 0;
    std::vector<std::string> dirs;
    for (const auto& [dir, listing] : listings) {
        if (!listing.present) continue;
        for (const auto& [file, bytes] : listing.files) total += bytes;
        dirs.push_back(dir);
    }
    if (memory == 0 || total <= memory) return std::nullopt;
    return fmt::format(
        "the models it loads ({}: {}) are larger than its memory ({}): its page cache cannot "
        "hold them, so every start reads them from disk and --prewarm reads them for nothing",
        util::join(dirs, ", "), util::format_bytes(total), util::format_bytes(memory));
}

std::vector<ModelFileProblem> compare_model_files(const std::string& dir,
                                                  const std::vector<NodeModelListing>& nodes) {
    std::vector<ModelFileProblem> problems;
    std::vector<const NodeModelListing*> present;
    for (const auto& node : nodes)
        if (node.listing && node.listing->present) present.push_back(&node);
    if (present.empty()) return problems;
    std::vector<std::string> holders;
    for (const auto* node : present) holders.push_back(node->node);
    for (const auto& node : nodes)
        if (node.listing && !node.listing->present)
            problems.push_back(
                {node.node, node.role,
                 fmt::format("model directory {} missing (present on {})", dir, util::join(holders, ", "))});
    if (present.size() < 2) return problems;

    // Every file any node has, and the size most nodes have (the larger on a tie).
    std::map<std::string, std::map<std::uint64_t, int>> sizes;
    for (const auto* node : present)
        for (const auto& [file, size] : node->listing->files) ++sizes[file][size];
    std::map<std::string, std::uint64_t> expected;
    std::map<std::string, std::vector<std::string>> having;
    for (const auto& [file, votes] : sizes) {
        std::uint64_t best = 0;
        int most = 0;
        for (const auto& [size, count] : votes)
            if (count >= most) {  // ascending sizes: a tie goes to the larger
                best = size;
                most = count;
            }
        expected[file] = best;
    }
    for (const auto* node : present)
        for (const auto& [file, size] : node->listing->files) having[file].push_back(node->node);

    for (const auto* node : present) {
        std::vector<std::string> missing, short_or_long;
        for (const auto& [file, size] : expected) {
            const auto found = node->listing->files.find(file);
            if (found == node->listing->files.end())
                missing.push_back(fmt::format("{} ({}; {} have it)", file, util::format_bytes(size),
                                              util::join(having[file], ", ")));
            else if (found->second != size)
                short_or_long.push_back(fmt::format("{} is {} where {} of {} nodes have {}", file,
                                                    util::format_bytes(found->second), sizes[file][size],
                                                    present.size(), util::format_bytes(size)));
        }
        if (!missing.empty())
            problems.push_back({node->node, node->role,
                                fmt::format("{} model file{} missing from {}: {}", missing.size(),
                                            missing.size() == 1 ? "" : "s", dir, named(missing))});
        if (!short_or_long.empty())
            problems.push_back({node->node, node->role,
                                fmt::format("{} model file{} of {} differ{} in size (a copy cut short?): {}",
                                            short_or_long.size(), short_or_long.size() == 1 ? "" : "s", dir,
                                            short_or_long.size() == 1 ? "s" : "", named(short_or_long))});
    }
    return problems;
}

}  // namespace pdctl::doctor

#include "pdctl/runtime/runtime.hpp"

#include "pdctl/runtime/container_runtime.hpp"
#include "pdctl/runtime/process_runtime.hpp"
#include "pdctl/runtime/slurm_runtime.hpp"

namespace pdctl::runtime {

std::unique_ptr<Runtime> make_runtime(const RuntimeSpec& spec, const std::string& node_dir) {
    if (!spec.slurm_dir.empty()) {
        // The node's name is the last part of its state directory (config::node_state_dir).
        const auto slash = node_dir.rfind('/');
        return std::make_unique<SlurmRuntime>(
            spec, slash == std::string::npos ? node_dir : node_dir.substr(slash + 1));
    }
    if (spec.kind == config::RuntimeKind::Docker) return std::make_unique<ContainerRuntime>(spec, node_dir);
    return std::make_unique<ProcessRuntime>(spec, node_dir);
}

std::vector<std::string> Runtime::run_words(const UnitSpec&, const exec::Command& start) const {
    return start_payload(start);
}

std::optional<exec::Command> Runtime::rename(const std::string&, const std::string&) const {
    return std::nullopt;
}

std::optional<SlurmJob> Runtime::group_job(const config::SlurmSettings&, const std::string&,
                                           const std::vector<UnitSpec>&, const std::string&,
                                           SlurmPlacement) const {
    return std::nullopt;
}

std::vector<std::string> start_payload(const exec::Command& start) {
    constexpr std::size_t kPrefix = 4 + 4;  // sh -c SCRIPT pdctl-start + four positional parameters
    if (start.argv.size() <= kPrefix) return start.argv;
    return {start.argv.begin() + kPrefix, start.argv.end()};
}

std::string CacheSpec::script_text() const {
    if (!enabled()) return {};
    std::string text = dir;
    for (const auto& part : parts) text += "\n" + part;
    return text;
}

std::string env_file_content(const std::vector<EnvEntry>& env) {
    std::string out;
    for (const auto& entry : env) out += entry.key + "=" + entry.value + "\n";
    return out + kEnvEndMarker + "\n";
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find_first_of("\r\n", start);
        if (end == std::string::npos) end = text.size();
        if (end > start) lines.emplace_back(text, start, end - start);
        start = end + 1;
    }
    return lines;
}

std::map<std::string, std::string> unit_labels(const UnitSpec& unit) {
    std::map<std::string, std::string> labels{
        {"pdctl.cluster", unit.cluster},           {"pdctl.role", unit.role},
        {"pdctl.rank", std::to_string(unit.rank)}, {"pdctl.node", unit.node},
        {"pdctl.config", unit.fingerprint},
    };
    labels.insert(unit.extra_labels.begin(), unit.extra_labels.end());  // never over the ones above
    return labels;
}

}  // namespace pdctl::runtime

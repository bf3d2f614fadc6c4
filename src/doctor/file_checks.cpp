// FILE001, FILE002: the files BOOTSTRAP installs (the runbook's patch script and wheels) are on the node, and
// they are the ones this machine would push. A missing or different wheel otherwise shows up only as a
// pip error in a container log, minutes into a start.

#include <fmt/format.h>

#include <map>
#include <utility>

#include "checks.hpp"
#include "pdctl/doctor/model_files.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::doctor::detail {

bool check_files(const NodeNeeds& needs, const NodeProbe& probe, lint::FindingSink& sink) {
    if (needs.files.empty()) return false;
    const auto listing =
        probe.files_probed ? push::parse_probe(probe.files_out, needs.files.size()) : std::nullopt;
    if (!listing) {
        sink.add(lint::Severity::Warn, "", "cannot list the files of `files:` on the node",
                 "run `pdctl -vv doctor`; the node needs sh, stat and sha256sum or openssl");
        return true;
    }
    std::vector<std::string> missing;
    std::vector<std::string> different;
    for (std::size_t i = 0; i < needs.files.size(); ++i) {
        const auto& need = needs.files[i];
        const auto& have = (*listing)[i];
        if (have.kind != push::RemoteFile::Kind::Regular) {
            missing.push_back(need.dest);
        } else if (!need.sha256.empty() && have.sha256 != need.sha256) {
            different.push_back(need.dest);
        }
    }
    if (!missing.empty())
        sink.add(lint::Severity::Error, "",
                 fmt::format("{} of {} files missing: {}", missing.size(), needs.files.size(),
                             util::join(missing)),
                 "`pdctl push` copies them (BOOTSTRAP installs them before the server starts)");
    if (!different.empty())
        sink.add(lint::Severity::Error, "",
                 fmt::format("{} file{} differ{} from the local source (sha256): {}", different.size(),
                             different.size() == 1 ? "" : "s", different.size() == 1 ? "s" : "",
                             util::join(different)),
                 "`pdctl push` replaces them with the local copies");
    return true;
}

// FILE002: the nodes that load one model directory list it alike (doctor/model_files.hpp).
int check_model_files(const CrossNodeInput& input, lint::FindingSink& sink) {
    std::map<std::string, std::vector<std::pair<std::size_t, ModelNeed>>> users;  // dir -> (node, need)
    std::vector<std::map<std::string, ModelListing>> listings(input.needs.size());
    int checked = 0;
    for (std::size_t i = 0; i < input.needs.size(); ++i) {
        if (input.needs[i]->models.empty() || !input.probes[i]->models_probed) continue;
        listings[i] = parse_model_files(input.probes[i]->models_out);
        for (const auto& model : input.needs[i]->models) users[model.dir].emplace_back(i, model);
        ++checked;
    }
    for (const auto& [dir, nodes] : users) {
        std::vector<NodeModelListing> compared;
        for (const auto& [index, need] : nodes) {
            const auto found = listings[index].find(dir);
            compared.push_back({input.needs[index]->node.name, need.role,
                                found == listings[index].end() ? nullptr : &found->second});
        }
        for (const auto& problem : compare_model_files(dir, compared)) {
            auto& finding = sink.add(
                lint::Severity::Error, problem.role, problem.node + ": " + problem.message,
                "copy the model to that node again (rsync -a --partial from a node that has it), or "
                "point --model-path at a complete copy: the rank would fail part-way through its load");
            finding.node = problem.node;
        }
    }
    return checked;
}

// FILE003: what a node loads fits in its memory (doctor/model_files.hpp).
int check_model_memory(const CrossNodeInput& input, lint::FindingSink& sink) {
    int checked = 0;
    for (std::size_t i = 0; i < input.needs.size(); ++i) {
        if (input.needs[i]->models.empty() || !input.probes[i]->models_probed) continue;
        const auto& out = input.probes[i]->models_out;
        ++checked;
        if (const auto problem = model_memory_problem(parse_model_files(out), parse_node_memory(out))) {
            auto& finding =
                sink.add(lint::Severity::Warn, input.needs[i]->models.front().role, *problem,
                         "a node with more memory, or a model split over more nodes (a larger TP)");
            finding.node = input.needs[i]->node.name;
        }
    }
    return checked;
}

}  // namespace pdctl::doctor::detail

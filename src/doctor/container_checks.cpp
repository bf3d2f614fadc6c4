// CTR001-CTR003: for roles with the docker runtime, the container CLI answers (`docker info` needs the
// daemon; `podman info` its storage), the image is on the node, and it is the same image everywhere:
// a tag pulled at different times can be different builds, and a group whose ranks run different
// builds fails in ways that look like anything but that.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks.hpp"
#include "text.hpp"

namespace pdctl::doctor::detail {
namespace {

std::string short_id(std::string id) {
    if (id.starts_with("sha256:")) id = id.substr(7);
    return id.substr(0, 12);
}

}  // namespace

bool check_container_cli(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.containers.empty()) return false;
    std::vector<std::string> seen;
    for (const auto& container : input.needs.containers) {
        if (std::find(seen.begin(), seen.end(), container.cli) != seen.end()) continue;
        seen.push_back(container.cli);
        const auto* cli = input.facts.find_cli(container.cli);
        if (!cli) continue;
        if (cli->state == ContainerCli::State::Missing)
            sink.add(
                lint::Severity::Error, container.role,
                fmt::format("container CLI `{}` is not on PATH on {}", container.cli, input.needs.node.name),
                "install it on the node, or set `container.cli` (docker, podman or a path) in pdctl.yaml");
        else if (cli->state == ContainerCli::State::Failing)
            sink.add(
                lint::Severity::Error, container.role,
                fmt::format("`{} info` fails on {}: {}", container.cli, input.needs.node.name,
                            cli->error.empty() ? "no output" : cli->error),
                "start the daemon on the node (`systemctl start docker`) and check that this SSH user may "
                "use it (docker group, or root)");
    }
    return true;
}

bool check_image_present(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.containers.empty()) return false;
    for (const auto& container : input.needs.containers) {
        const auto* cli = input.facts.find_cli(container.cli);
        if (!cli || cli->state != ContainerCli::State::Ok) continue;  // CTR001 said why
        for (const auto& image : input.facts.images) {
            if (image.cli != container.cli || image.image != container.image || !image.id.empty()) continue;
            sink.add(
                container.never_pull ? lint::Severity::Error : lint::Severity::Warn, container.role,
                container.never_pull
                    ? fmt::format("image {} is not on {}, and the role's options say --pull never",
                                  container.image, input.needs.node.name)
                    : fmt::format("image {} is not on {}: `{} run` will pull it during the start (slow, and "
                                  "maybe another build than on the other nodes)",
                                  container.image, input.needs.node.name, container.cli),
                fmt::format("`{} pull {}` on the node before the start (or load it from an archive)",
                            container.cli, container.image));
        }
    }
    return true;
}

int check_image_ids(const CrossNodeInput& input, lint::FindingSink& sink) {
    // (cli, image) → node index → id
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::size_t, std::string>>> ids;
    int checked = 0;
    for (std::size_t i = 0; i < input.facts.size(); ++i) {
        bool any = false;
        for (const auto& image : input.facts[i]->images) {
            if (image.id.empty()) continue;
            ids[{image.cli, image.image}].emplace_back(i, image.id);
            any = true;
        }
        checked += any ? 1 : 0;
    }
    for (const auto& [key, found] : ids) {
        // The id most nodes have (the first node's on a tie) is the reference.
        std::map<std::string, int> votes;
        for (const auto& entry : found) ++votes[entry.second];
        std::string reference = found.front().second;
        for (const auto& entry : found)
            if (votes[entry.second] > votes[reference]) reference = entry.second;
        for (const auto& [index, id] : found) {
            if (id == reference) continue;
            const auto& needs = *input.needs[index];
            std::string role;
            for (const auto& container : needs.containers)
                if (container.cli == key.first && container.image == key.second) role = container.role;
            auto& finding = sink.add(
                lint::Severity::Error, role,
                fmt::format("image {} on {} is {}, but {} of {} nodes have {}", key.second, needs.node.name,
                            short_id(id), votes[reference], found.size(), short_id(reference)),
                fmt::format(
                    "pull or load the same build on every node (`{} image inspect --format '{{{{.Id}}}}' {}` "
                    "shows it); pin the image by digest (image@sha256:...) in pdctl.yaml",
                    key.first, key.second));
            finding.node = needs.node.name;
        }
    }
    return checked;
}

}  // namespace pdctl::doctor::detail

#pragma once
// The pod template of one stage: every rank of a role group runs from one template, so the builder
// templates each rank's plan argv and env (k8s_template.hpp) and requires them to come out the same.

#include <set>
#include <string>
#include <vector>

#include "k8s_template.hpp"
#include "pdctl/config/model.hpp"
#include "pdctl/export/yaml_text.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter::detail {

struct PodInput {
    const plan::Stage* stage = nullptr;
    const config::Role* role = nullptr;  // the stage's role in the config (ports, GPUs, where)
    std::string image;
    // runtime: process: the argv is the whole command (the image's entrypoint is not pdctl's to keep);
    // docker: `docker run IMAGE ARGV` keeps the entrypoint, so the argv goes to `args`.
    bool whole_command = false;
    TemplateInput templating;
    Tree labels;
    const std::vector<config::Node>* nodes = nullptr;
};

struct PodOutput {
    Tree pod_template;  // {metadata: {labels}, spec: {...}}
    std::set<std::string> secret_keys;
    std::vector<std::string> notes;  // the role not named
};

// Throws config::ConfigError (at the role's line) when the ranks cannot share one template.
PodOutput pod_template(const PodInput& input);

}  // namespace pdctl::exporter::detail

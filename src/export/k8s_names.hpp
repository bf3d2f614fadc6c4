#pragma once
// Kubernetes names for pdctl's roles, and each stage's image: the two things the config may not
// give in a form Kubernetes takes, checked for every role before anything is built so that one run
// names every role to fix (config::ConfigError, at the role's line).

#include <map>
#include <string>

#include "pdctl/config/model.hpp"
#include "pdctl/export/k8s_manifests.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter::detail {

struct StageNames {
    std::string role;    // the stage's name as a DNS label: the RBG role, the pods' component label
    std::string object;  // <cluster>-<role>: the LeaderWorkerSet, Deployment and Service name
    std::string image;
    bool whole_command = false;  // runtime: process: the argv is the container's command
};

// By stage name, for every stage of the plan.
std::map<std::string, StageNames> stage_names(const config::Cluster& cluster, const plan::Plan& plan,
                                              const K8sOptions& options);

// The config role a stage comes from (the loader's per-group Role).
const config::Role& role_of(const config::Cluster& cluster, const plan::Stage& stage);

}  // namespace pdctl::exporter::detail

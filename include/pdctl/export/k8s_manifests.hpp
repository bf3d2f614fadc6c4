#pragma once
// `pdctl export k8s`: the deployment a cluster file describes, as Kubernetes manifests (docs/kubernetes.md).
// Pure: from the validated config and its plan to YAML text; reads no file, touches no node.
//
//   --format lws  one LeaderWorkerSet per SGLang role group (leader = rank 0, workers = ranks 1..N-1),
//                 the other roles (Mooncake master, router) as a Deployment and a Service each;
//   --format rbg  one RoleBasedGroup (sgl-project/rbg, workloads.x-k8s.io/v1alpha2) with a role per
//                 stage and the plan's dependencies between them.
//
// Each container runs the argv the plan gives its ranks (runtime::launch_argv of the rank's program),
// with only the rank-specific words replaced by the controller's variables; env values marked secret
// become Secret references, never values.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter {

enum class K8sFormat { Lws, Rbg };

std::optional<K8sFormat> parse_k8s_format(const std::string& text);  // "lws" | "rbg"

struct K8sOptions {
    K8sFormat format = K8sFormat::Lws;
    // --image IMAGE: the image of every role that has none in the config (runtime: process).
    std::string image;
    // --image ROLE=IMAGE, by `roles:` key: that role's image, whatever the config says.
    std::map<std::string, std::string> role_images;
    std::string secret_name;     // the Secret holding every secret value; "" = <cluster>-secrets
    std::string kube_namespace;  // metadata.namespace of every object; "" = none (kubectl -n decides)
};

struct K8sManifests {
    std::string yaml;  // every object, `---` between them, a comment header first
    std::vector<std::string>
        notes;  // what the manifests cannot say that the config does (also in the header)
};

// Throws config::ConfigError (file:line of the role) when a role has no image and none was given,
// when a role's name does not make a Kubernetes name, or when a group's ranks cannot share one pod
// template; Failure(kUsage) for an --image naming no role.
K8sManifests k8s_manifests(const config::Cluster& cluster, const plan::Plan& plan, const K8sOptions& options);

}  // namespace pdctl::exporter

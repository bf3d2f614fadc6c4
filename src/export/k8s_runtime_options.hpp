#pragma once
// What a role's `docker run` options ask of the node (container.options in the config: --ipc host,
// --privileged, --shm-size, --device /dev/infiniband, -v /data:/data ...) as pod settings. Under
// Kubernetes the same needs are spelled differently; an option with no equivalent is named in the
// export's notes rather than silently dropped.

#include <string>
#include <vector>

#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter::detail {

struct HostMount {
    std::string name;  // the pod volume's name
    std::string host_path;
    std::string mount_path;
    bool read_only = false;
};

struct PodSettings {
    bool host_ipc = false;
    bool privileged = false;
    std::vector<std::string> capabilities;  // securityContext.capabilities.add, in option order
    bool shm = false;                       // /dev/shm as an in-memory emptyDir
    std::string shm_size;                   // its sizeLimit (a quantity), "" = none
    std::vector<HostMount> mounts;          // hostPath volumes, in option order
    std::vector<std::string> notes;
};

PodSettings pod_settings(const plan::Stage& stage);

// docker's size units (b, k, m, g; binary) as a Kubernetes quantity: 32g → 32Gi; "" if not one.
std::string docker_size_quantity(const std::string& size);

}  // namespace pdctl::exporter::detail

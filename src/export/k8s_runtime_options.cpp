#include "k8s_runtime_options.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace pdctl::exporter::detail {
namespace {

// Options that take a value: `--opt value` or `--opt=value`.
const std::set<std::string> kValueOptions = {
    "--network", "--net",  "--ipc",    "--shm-size",     "--device", "-v",    "--volume",
    "--cap-add", "--gpus", "--ulimit", "--security-opt", "-e",       "--env", "--mount"};

// /data → host-data, /dev/infiniband → host-dev-infiniband: a DNS label, unique in the pod.
std::string volume_name(const std::string& path, const std::vector<HostMount>& taken) {
    std::string name = "host";
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        const char next = std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
        if (next != '-' || name.back() != '-') name += next;
    }
    while (name.back() == '-') name.pop_back();
    if (name.size() > 55) name.resize(55);
    std::string unique = name;
    for (int n = 2; std::any_of(taken.begin(), taken.end(), [&](const auto& m) { return m.name == unique; });
         ++n)
        unique = name + "-" + std::to_string(n);
    return unique;
}

void add_capability(PodSettings& settings, const std::string& capability) {
    if (std::find(settings.capabilities.begin(), settings.capabilities.end(), capability) ==
        settings.capabilities.end())
        settings.capabilities.push_back(capability);
}

void apply_option(const std::string& option, const std::string& value, PodSettings& settings) {
    const std::string shown = value.empty() ? option : option + " " + value;
    auto left_out = [&](const std::string& why) {
        settings.notes.push_back("docker option `" + shown + "` left out: " + why);
    };
    if (option == "--network" || option == "--net") {
        if (value != "host") left_out("every pod uses the node's network (hostNetwork)");
    } else if (option == "--ipc") {
        if (value == "host")
            settings.host_ipc = true;
        else
            left_out("only --ipc host has a pod equivalent (hostIPC)");
    } else if (option == "--privileged") {
        settings.privileged = true;
    } else if (option == "--gpus") {
        // The GPUs are the nvidia.com/gpu request (gpus_per_node), which the device plugin assigns.
    } else if (option == "--init" || option == "--rm" || option == "-d" || option == "--detach") {
        // pdctl's own `docker run` habits; the kubelet reaps and supervises.
    } else if (option == "--shm-size") {
        settings.shm = true;
        settings.shm_size = docker_size_quantity(value);
        if (settings.shm_size.empty()) left_out("not a docker size");
    } else if (option == "--cap-add") {
        add_capability(settings, value);
    } else if (option == "--ulimit") {
        // CAP_IPC_LOCK lets a process lock memory past RLIMIT_MEMLOCK, which is what memlock=-1 is for
        // (Mooncake and NCCL register GPU and host memory with the RDMA NIC).
        if (value.rfind("memlock=", 0) == 0)
            add_capability(settings, "IPC_LOCK");
        else
            left_out("a pod cannot set rlimits; the container runtime's defaults apply");
    } else if (option == "--device" || option == "-v" || option == "--volume") {
        // SRC[:DST[:MODE]]; only host paths (a named docker volume has no pod equivalent here).
        const auto first = value.find(':');
        const std::string source = value.substr(0, first);
        std::string dest = source;
        std::string mode;
        if (first != std::string::npos) {
            const auto second = value.find(':', first + 1);
            dest =
                value.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
            if (second != std::string::npos) mode = value.substr(second + 1);
        }
        if (source.empty() || source.front() != '/' || dest.empty() || dest.front() != '/') {
            left_out("only host paths map to hostPath volumes");
            return;
        }
        HostMount mount{volume_name(source, settings.mounts), source, dest, false};
        mount.read_only = option != "--device" && (mode == "ro" || mode.rfind("ro,", 0) == 0);
        settings.mounts.push_back(mount);
    } else {
        left_out("no Kubernetes equivalent in this export");
    }
}

}  // namespace

std::string docker_size_quantity(const std::string& size) {
    static const std::regex kSize(R"(([0-9]+)([bBkKmMgG]?)[bB]?)");
    std::smatch match;
    if (!std::regex_match(size, match, kSize)) return {};
    const char unit = match[2].length() ? static_cast<char>(std::tolower(match[2].str()[0])) : 'b';
    switch (unit) {
        case 'k':
            return match[1].str() + "Ki";
        case 'm':
            return match[1].str() + "Mi";
        case 'g':
            return match[1].str() + "Gi";
        default:
            return match[1].str();
    }
}

PodSettings pod_settings(const plan::Stage& stage) {
    PodSettings settings;
    if (stage.runtime.kind == config::RuntimeKind::Process) {
        // A process on the node sees every device and the host's IPC; an SGLang rank needs both (the
        // RDMA NICs, CUDA IPC). The pod keeps that, and a /dev/shm not capped at docker's 64 MiB.
        if (stage.kind == config::RoleKind::Sglang) {
            settings.privileged = true;
            settings.host_ipc = true;
            settings.shm = true;
        }
        return settings;
    }
    const auto& options = stage.runtime.options;
    for (std::size_t i = 0; i < options.size(); ++i) {
        std::string option = options[i];
        std::string value;
        if (const auto eq = option.find('='); option.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = option.substr(eq + 1);
            option.resize(eq);
        } else if (kValueOptions.count(option) && i + 1 < options.size()) {
            value = options[++i];
        }
        apply_option(option, value, settings);
    }
    return settings;
}

}  // namespace pdctl::exporter::detail

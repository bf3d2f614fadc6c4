#include "pdctl/doctor/takeover.hpp"

#include <algorithm>
#include <sstream>

#include "checks.hpp"
#include "embedded/doctor_scripts.hpp"
#include "pdctl/lint/unit_ports.hpp"
#include "text.hpp"

namespace pdctl::doctor {
namespace {

int to_int(const std::string& text) {
    try {
        return std::stoi(text);
    } catch (...) {
        return 0;
    }
}

// What the plan needs on `node`: ports with who binds them, the images of its roles, whether it runs
// sglang ranks (then every GPU compute process is in the way).
struct NodeWants {
    struct Port {
        std::string host;  // "" = every interface
        int port = 0;
        std::string who;  // "prefill rank 0 --port"
    };
    std::vector<Port> ports;
    std::vector<std::pair<std::string, std::vector<std::string>>> images;  // image, the roles that run it
    bool gpus = false;
};

NodeWants wants_of(const config::Cluster& cluster, const plan::Plan& plan, const std::string& node) {
    NodeWants wants;
    for (const auto& stage : plan.stages) {
        const auto* role = cluster.find_role(stage.role);
        if (!role) continue;
        for (const auto& unit : stage.units) {
            if (unit.node != node) continue;
            for (const auto& port : lint::unit_ports(*role, stage, unit))
                wants.ports.push_back({port.host, port.port,
                                       stage.role + " rank " + std::to_string(unit.rank) + " " + port.what});
            if (!stage.runtime.image.empty()) {
                auto image = std::find_if(wants.images.begin(), wants.images.end(), [&](const auto& known) {
                    return known.first == stage.runtime.image;
                });
                if (image == wants.images.end())
                    image = wants.images.insert(wants.images.end(), {stage.runtime.image, {}});
                if (std::find(image->second.begin(), image->second.end(), stage.role) == image->second.end())
                    image->second.push_back(stage.role);
            }
            wants.gpus = wants.gpus || stage.kind == config::RoleKind::Sglang;
        }
    }
    return wants;
}

const TakeoverFacts::Process* process_of(const TakeoverFacts& facts, int pid) {
    for (const auto& process : facts.processes)
        if (process.pid == pid) return &process;
    return nullptr;
}

// The container a process runs in: its cgroup names the container, or the container's main process
// is the process or one of its ancestors.
const TakeoverFacts::Container* container_of(const TakeoverFacts& facts, int pid) {
    for (int hops = 0; pid > 1 && hops < 64; ++hops) {
        const auto* process = process_of(facts, pid);
        for (const auto& container : facts.containers) {
            if (container.pid == pid) return &container;
            if (process && !process->container_id.empty() && container.id == process->container_id)
                return &container;
        }
        if (!process) return nullptr;
        pid = process->ppid;
    }
    return nullptr;
}

class Holders {
  public:
    Holders(const config::Cluster& cluster, const std::string& node, const TakeoverFacts& facts)
        : cluster_(cluster), node_(node), facts_(facts) {}

    // Records `why` against whatever holds `pid`, unless it is pdctl's own unit of this cluster.
    void held_by(int pid, const std::string& why) {
        if (const auto* container = container_of(facts_, pid)) {
            if (container->cluster_label == cluster_.name) return;
            add(true, container->id, container->name, container->image, container->pid, why);
            return;
        }
        const auto* process = process_of(facts_, pid);
        if (process && std::find(facts_.pdctl_groups.begin(), facts_.pdctl_groups.end(), process->pgid) !=
                           facts_.pdctl_groups.end())
            return;
        add(false, std::to_string(pid), process ? process->comm : "?", "", pid, why);
    }
    void container(const TakeoverFacts::Container& container, const std::string& why) {
        if (container.cluster_label == cluster_.name) return;
        add(true, container.id, container.name, container.image, container.pid, why);
    }
    std::vector<ForeignHolder> take() {
        std::stable_partition(found_.begin(), found_.end(),
                              [](const ForeignHolder& h) { return h.container; });
        return std::move(found_);
    }

  private:
    void add(bool is_container, const std::string& id, const std::string& name, const std::string& image,
             int pid, const std::string& why) {
        auto holder = std::find_if(found_.begin(), found_.end(), [&](const ForeignHolder& h) {
            return h.container == is_container && h.id == id;
        });
        if (holder == found_.end())
            holder = found_.insert(found_.end(), {node_, is_container, id, name, image, pid, {}});
        if (std::find(holder->reasons.begin(), holder->reasons.end(), why) == holder->reasons.end())
            holder->reasons.push_back(why);
    }

    const config::Cluster& cluster_;
    std::string node_;
    const TakeoverFacts& facts_;
    std::vector<ForeignHolder> found_;
};

}  // namespace

exec::Command takeover_probe_command(const std::string& cli, const std::string& node_dir) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::takeover_probe), "pdctl-takeover-probe", cli, node_dir};
    command.timeout = std::chrono::seconds(60);  // a few bounded steps of 15 s, per container at most
    return command;
}

TakeoverFacts parse_takeover_probe(const std::string& output) {
    TakeoverFacts facts;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        const auto f = detail::split(line, '\t');
        if (f.empty()) continue;
        if (f[0] == "end") {
            facts.complete = true;
        } else if (f[0] == "container" && f.size() >= 6) {
            facts.containers.push_back({f[1], f[2], f[3], f[4], to_int(f[5])});
        } else if (f[0] == "listen" && f.size() >= 3) {
            if (const auto local = detail::parse_listen_address(f[1]))
                facts.listeners.push_back({local->host, local->port, to_int(f[2])});
        } else if (f[0] == "gpu" && f.size() >= 3 && to_int(f[1]) > 0) {
            facts.gpu_processes.push_back({to_int(f[1]), to_int(f[2])});
        } else if (f[0] == "proc" && f.size() >= 5) {
            facts.processes.push_back(
                {to_int(f[1]), to_int(f[2]), to_int(f[3]), f[4], f.size() >= 6 ? f[5] : ""});
        } else if (f[0] == "pdctl-group" && f.size() >= 2) {
            facts.pdctl_groups.push_back(to_int(f[1]));
        }
    }
    return facts;
}

std::vector<ForeignHolder> foreign_holders(const config::Cluster& cluster, const plan::Plan& plan,
                                           const std::string& node, const TakeoverFacts& facts) {
    const auto wants = wants_of(cluster, plan, node);
    Holders holders(cluster, node, facts);
    for (const auto& listener : facts.listeners)
        for (const auto& port : wants.ports)
            if (detail::binds_collide(port.host, port.port, {listener.host, listener.port, ""})) {
                holders.held_by(listener.pid, "port " + std::to_string(port.port) + " (" + port.who + ")");
                break;
            }
    if (wants.gpus)
        for (const auto& gpu : facts.gpu_processes)
            holders.held_by(gpu.pid, "GPU compute process (" + std::to_string(gpu.mib) + " MiB)");
    for (const auto& container : facts.containers)
        for (const auto& [image, roles] : wants.images)
            if (container.image == image)
                holders.container(container,
                                  "runs " + image + ", the image of " + detail::join(roles, " and "));
    return holders.take();
}

}  // namespace pdctl::doctor

#include "pdctl/ops/worker_infos.hpp"

#include <fmt/format.h>

#include <chrono>

#include "pdctl/health/http_prober.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

constexpr auto kTimeout = std::chrono::seconds(5);

bool staging_buffer(const config::Role* role) {
    if (role == nullptr) return false;
    for (const auto& var : role->env)
        if (var.key == "SGLANG_DISAGG_STAGING_BUFFER")
            return !var.value.empty() && var.value != "0" && var.value != "false";
    return false;
}

// MOONCAKE_LOCAL_HOSTNAME, else LOCAL_HOSTNAME (SGLang's Mooncake store reads either), from the profile.
std::string mooncake_local_hostname(const config::Role* role) {
    if (role == nullptr) return "";
    for (const char* key : {"MOONCAKE_LOCAL_HOSTNAME", "LOCAL_HOSTNAME"})
        for (const auto& var : role->env)
            if (var.key == key) return var.value;
    return "";
}

void read_one(health::HttpProber& prober, const std::string& gate_url, doctor::WorkerInfo& worker) {
    auto answer = prober.get(util::url_with_path(gate_url, "/server_info"), kTimeout);
    if (answer.status == 404)
        answer = prober.get(util::url_with_path(gate_url, "/get_server_info"), kTimeout);
    if (answer.status != 200) {
        worker.unavailable =
            answer.status == 0 ? "no answer: " + answer.error : fmt::format("HTTP {}", answer.status);
        return;
    }
    worker.server_info = nlohmann::json::parse(answer.body, nullptr, false);
    if (!worker.server_info.is_object()) {
        worker.server_info = nullptr;
        worker.unavailable = "the answer is not a JSON object";
    }
}

}  // namespace

std::vector<doctor::WorkerInfo> read_worker_infos(const Deployment& deployment) {
    std::vector<doctor::WorkerInfo> workers;
    std::vector<std::string> urls;
    for (const auto& stage : deployment.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        // Filled in place: GCC 12 warns (wrongly) of an uninitialised string when a local is moved in.
        auto& worker = workers.emplace_back();
        worker.role = stage.role;
        worker.mode = stage.mode;
        worker.node = stage.gate.node;
        if (const auto* node = deployment.cluster.find_node(stage.gate.node)) worker.host = node->compute();
        worker.staging_buffer = staging_buffer(deployment.cluster.find_role(stage.role));
        worker.mooncake_local_hostname = mooncake_local_hostname(deployment.cluster.find_role(stage.role));
        urls.push_back(stage.gate.url);
    }
    auto& prober = *deployment.prober;
    util::for_each_parallel(workers.size(), util::kEngineFanout,
                            [&](std::size_t i) { read_one(prober, urls[i], workers[i]); });
    return workers;
}

}  // namespace pdctl::ops

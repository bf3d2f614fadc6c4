#include "pdctl/doctor/worker_consistency.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "pdctl/doctor/live_checks.hpp"

namespace pdctl::doctor {
namespace {

using json = nlohmann::json;

// A field of the answer as text ("" when it is missing), so that 64 and "64" compare as equal.
std::string field(const WorkerInfo& worker, const char* name) {
    const auto it = worker.server_info.find(name);
    if (it == worker.server_info.end() || it->is_null()) return "";
    return it->is_string() ? it->get<std::string>() : it->dump();
}

struct Agreement {
    const char* id;
    const char* field;
    const char* what;
    const char* fix;
};

constexpr Agreement kAgreements[] = {
    {"PAIR001", "model_path", "model path", "serve the same model (weights) on both sides"},
    {"PAIR002", "page_size", "page size (--page-size)",
     "give both groups the same --page-size: the KV cache is moved page by page"},
    {"PAIR003", "kv_cache_dtype", "KV cache dtype (--kv-cache-dtype)",
     "give both groups the same --kv-cache-dtype: the bytes moved must mean the same on both sides"},
    {"PAIR004", "disaggregation_transfer_backend", "transfer backend (--disaggregation-transfer-backend)",
     "give both groups the same --disaggregation-transfer-backend"},
};

lint::Finding finding(const char* id, lint::Severity severity, const WorkerInfo& about, std::string message,
                      std::string fix) {
    lint::Finding out;
    out.id = id;
    out.severity = severity;
    out.role = about.role;
    out.node = about.node;
    out.message = std::move(message);
    out.fix = std::move(fix);
    for (const auto& check : live_checks())
        if (check.id == id) out.reference = check.reference;
    return out;
}

// localhost, 127.0.0.0/8, ::1: an address every host has for itself.
bool loopback(const std::string& host) {
    return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]";
}

}  // namespace

std::vector<lint::Finding> check_worker_consistency(const std::vector<WorkerInfo>& workers) {
    std::vector<const WorkerInfo*> prefills;
    std::vector<const WorkerInfo*> decodes;
    for (const auto& worker : workers) {
        if (!worker.server_info.is_object()) continue;  // no answer: nothing to compare
        (worker.mode == "prefill" ? prefills : decodes).push_back(&worker);
    }
    std::vector<lint::Finding> findings;
    for (const auto* prefill : prefills) {
        for (const auto* decode : decodes) {
            for (const auto& agreement : kAgreements) {
                const std::string p = field(*prefill, agreement.field);
                const std::string d = field(*decode, agreement.field);
                if (p.empty() || d.empty() || p == d) continue;
                findings.push_back(finding(agreement.id, lint::Severity::Error, *decode,
                                           fmt::format("{} serves {} {}, {} serves {}: the router pairs them",
                                                       prefill->role, agreement.what, p, decode->role, d),
                                           agreement.fix));
            }
            const std::string p = field(*prefill, "tp_size");
            const std::string d = field(*decode, "tp_size");
            if (!p.empty() && !d.empty() && p != d && !(prefill->staging_buffer && decode->staging_buffer))
                findings.push_back(finding(
                    "PAIR005", lint::Severity::Warn, *decode,
                    fmt::format(
                        "{} runs --tp-size {}, {} --tp-size {}, and not both set "
                        "SGLANG_DISAGG_STAGING_BUFFER: SGLang refuses the transfer at the first request, "
                        "which then hangs",
                        prefill->role, p, decode->role, d),
                    "give both the same TP size, or set SGLANG_DISAGG_STAGING_BUFFER=1 in both profiles"));
        }
    }
    // Each prefill's bootstrap server listens on its host: two on one host need two ports.
    std::map<std::pair<std::string, std::string>, const WorkerInfo*> bootstrap;
    for (const auto* prefill : prefills) {
        const std::string port = field(*prefill, "disaggregation_bootstrap_port");
        if (port.empty()) continue;
        const auto [it, fresh] = bootstrap.emplace(std::pair{prefill->host, port}, prefill);
        if (fresh) continue;
        findings.push_back(finding("PAIR006", lint::Severity::Error, *prefill,
                                   fmt::format("{} and {} both announce bootstrap port {} on {}",
                                               it->second->role, prefill->role, port, prefill->host),
                                   "give each prefill group on a host its own bootstrap_port"));
    }
    // On a loopback-only deployment (the simulated cluster) loopback is the host's own address.
    for (const auto* group : {&prefills, &decodes})
        for (const auto* worker : *group)
            if (loopback(worker->mooncake_local_hostname) && !loopback(worker->host))
                findings.push_back(finding(
                    "PAIR007", lint::Severity::Error, *worker,
                    fmt::format("{} runs with MOONCAKE_LOCAL_HOSTNAME={} on {}: Mooncake announces that "
                                "address, and every peer that connects to it reaches itself",
                                worker->role, worker->mooncake_local_hostname, worker->host),
                    fmt::format("set MOONCAKE_LOCAL_HOSTNAME to the host's own address ({}) or leave it out",
                                worker->host)));
    return findings;
}

}  // namespace pdctl::doctor

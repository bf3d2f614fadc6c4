// PD018: keys that nothing reads. The old deployment's config.env and profiles held inputs of
// deploy_pd.sh itself (node lists, ranks, ports); under pdctl the cluster file says those, a shared
// env_files key is only read by ${VAR} in a profile, and a profile key reaches the server's
// environment, where only the stack's own variables mean anything. A leftover key is harmless until
// someone edits it and expects a change: each one is named with its file and line.

#include <algorithm>
#include <array>
#include <filesystem>

#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

// Variables the programs pdctl starts, or what runs inside their containers, read from the
// environment: SGLang (SGLANG_, SGL_), PyTorch and its distributed launcher, NCCL and Gloo, Mooncake's
// transfer engine and master (MC_, MOONCAKE_, GLOG_), CUDA and its libraries, Hugging Face, Triton,
// FlashInfer, DeepGEMM/DeepEP, the Rust router (RUST_), the simulator (PDSIM_), and the process basics.
constexpr std::array<std::string_view, 30> kReadPrefixes = {
    "SGLANG_", "SGL_",          "PYTORCH_",    "TORCH",   "NCCL_",       "GLOO_", "MC_",     "MOONCAKE_",
    "GLOG_",   "CUDA_",         "CUDNN_",      "NVIDIA_", "NVSHMEM_",    "NVTE_", "UCX_",    "HF_",
    "HUGGING", "TRANSFORMERS_", "TOKENIZERS_", "TRITON_", "FLASHINFER_", "DG_",   "DEEPEP_", "OMP_",
    "MKL_",    "RUST_",         "PDSIM_",      "PYTHON",  "LD_",         "LC_"};
constexpr std::array<std::string_view, 20> kReadNames = {"PATH",          "HOME",
                                                         "TMPDIR",        "TZ",
                                                         "LANG",          "MASTER_ADDR",
                                                         "MASTER_PORT",   "WORLD_SIZE",
                                                         "RANK",          "LOCAL_RANK",
                                                         "http_proxy",    "https_proxy",
                                                         "no_proxy",      "HTTP_PROXY",
                                                         "HTTPS_PROXY",   "NO_PROXY",
                                                         "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
                                                         "MODEL_PATH",    "OTEL_EXPORTER_OTLP_ENDPOINT"};

bool read_by_the_stack(const std::string& key) {
    return std::any_of(kReadPrefixes.begin(), kReadPrefixes.end(),
                       [&](std::string_view prefix) { return key.rfind(prefix, 0) == 0; }) ||
           std::find(kReadNames.begin(), kReadNames.end(), key) != kReadNames.end();
}

// `$KEY` or `${KEY` in text the server's shell expands at start (a single-quoted BOOTSTRAP, args).
bool mentioned(const std::string& text, const std::string& key) {
    for (const std::string& form : {"$" + key, "${" + key}) {
        for (auto at = text.find(form); at != std::string::npos; at = text.find(form, at + 1)) {
            const auto end = at + form.size();
            const bool whole = form[1] == '{' || end == text.size() ||
                               !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
            if (whole) return true;
        }
    }
    return false;
}

bool mentioned_by_role(const config::Role& role, const std::string& key) {
    if (mentioned(role.bootstrap, key)) return true;
    const auto in = [&](const std::vector<std::string>& words) {
        return std::any_of(words.begin(), words.end(),
                           [&](const std::string& w) { return mentioned(w, key); });
    };
    return in(role.args) || in(role.command) || in(role.program);
}

bool referenced(const config::Cluster& cluster, const std::string& key) {
    return std::find(cluster.env_references.begin(), cluster.env_references.end(), key) !=
           cluster.env_references.end();
}

std::string file_name(const config::SourceLocation& where) {
    return std::filesystem::path(where.file).filename().string();
}

void check_shared_keys(const config::Cluster& cluster, FindingSink& sink) {
    for (const auto& var : cluster.shared_env) {
        if (referenced(cluster, var.key)) continue;
        sink.add(Severity::Warn, "",
                 file_name(var.where) + " sets " + var.key +
                     ", which no profile uses: env_files keys are read only by ${" + var.key +
                     "} in a profile and are never exported to a role",
                 "delete it, or give it to a role with `" + var.key + "=${" + var.key + "}` in its profile")
            .location = var.where;
    }
}

void check_profile_keys(const config::Cluster& cluster, FindingSink& sink) {
    std::vector<std::pair<std::string, int>> seen;  // a profile shared by several roles: once per line
    for (const auto& role : cluster.roles) {
        if (role.kind == config::RoleKind::Generic) continue;  // its program is the operator's own
        for (const auto& var : role.env) {
            const bool from_profile = std::find(role.profile_files.begin(), role.profile_files.end(),
                                                var.where.file) != role.profile_files.end();
            if (!from_profile || read_by_the_stack(var.key) || referenced(cluster, var.key) ||
                mentioned_by_role(role, var.key))
                continue;
            const std::pair<std::string, int> place{var.where.file, var.where.line};
            if (std::find(seen.begin(), seen.end(), place) != seen.end()) continue;
            seen.push_back(place);
            sink.add(
                    Severity::Warn, role.name,
                    file_name(var.where) + " sets " + var.key +
                        ", which nothing reads: no SGLang, PyTorch, NCCL, Gloo or Mooncake variable has that "
                        "name, and no other key, BOOTSTRAP or argument of " +
                        role.name + " mentions it",
                    "delete it; a value deploy_pd.sh read (nodes, ranks, ports, TP) now comes from the "
                    "cluster "
                    "file (docs/migrating.md); if a program of yours reads it, acknowledge PD018 "
                    "(`doctor: ignore:`)")
                .location = var.where;
        }
    }
}

}  // namespace

void check_unused_keys(const RuleInput& input, FindingSink& sink) {
    check_shared_keys(input.cluster, sink);
    check_profile_keys(input.cluster, sink);
}

}  // namespace pdctl::lint

#include "k8s_template.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "pdctl/config/secret_flags.hpp"
#include "pdctl/runtime/process_runtime.hpp"

namespace pdctl::exporter::detail {
namespace {

std::string reference(const std::string& var) {
    return "$(" + var + ")";
}

// "--api-key" → PDCTL_ARG_API_KEY (the env var) and "api-key" (the Secret's key).
std::string secret_flag_env(std::string_view flag) {
    std::string name = "PDCTL_ARG_";
    for (const char c : flag.substr(2))
        name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

Tree secret_env(const std::string& name, const std::string& secret, const std::string& key) {
    return Tree{{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

Tree pod_ip_env(const std::string& name) {
    return Tree{{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}};
}

// The rank-specific words of an SGLang rank's argv (plan/sglang.cpp): --node-rank, the leader's
// address in --dist-init-addr, and the node's own address in --host.
std::vector<std::string> template_words(const plan::Stage& stage, const plan::Unit& unit,
                                        const TemplateInput& input, TemplatedProgram& out) {
    const auto& argv = unit.program.argv;
    const std::string& rank0 = stage.units.front().compute_address;
    std::vector<std::string> words;
    std::vector<Tree> secret_args;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& word = argv[i];
        const std::string previous = i > 0 ? argv[i - 1] : std::string();
        if (previous == "--node-rank" && !input.vars.worker_index.empty()) {
            words.push_back(reference(input.vars.worker_index));
            continue;
        }
        if (previous == "--dist-init-addr" && !input.vars.leader_address.empty() &&
            word.rfind(rank0 + ":", 0) == 0) {
            words.push_back(reference(input.vars.leader_address) + word.substr(rank0.size()));
            continue;
        }
        if (previous == "--host" && word == unit.compute_address) {
            words.push_back(reference(kPodIpVar));
            continue;
        }
        if (const auto url = input.worker_urls.find(word); url != input.worker_urls.end()) {
            words.push_back(url->second);
            continue;
        }
        bool secret = false;
        for (const auto flag : config::kSecretFlags) {  // the value goes to the Secret
            const std::string env = secret_flag_env(flag);
            const std::string key(flag.substr(2));
            if (previous == flag) {
                words.push_back(reference(env));
            } else if (word.size() > flag.size() && word.compare(0, flag.size(), flag) == 0 &&
                       word[flag.size()] == '=') {
                words.push_back(std::string(flag) + "=" + reference(env));
            } else {
                continue;
            }
            secret = true;
            out.secret_keys.insert(key);
            secret_args.push_back(secret_env(env, input.secret_name, key));
            break;
        }
        if (!secret) words.push_back(escape_dollars(word));
    }
    for (auto& env : secret_args) out.env.push_back(std::move(env));
    return words;
}

// Whether text[at] continues an address token: a letter, digit, `-`, `_`, or a `.` before more of it
// (so 174.1.60.1 is not found in 174.1.60.10, but is in "174.1.60.1." at the end of a sentence).
bool continues_address(const std::string& text, std::size_t at) {
    if (at >= text.size()) return false;
    const auto c = static_cast<unsigned char>(text[at]);
    if (std::isalnum(c) || c == '-' || c == '_') return true;
    return c == '.' && at + 1 < text.size() && std::isalnum(static_cast<unsigned char>(text[at + 1]));
}

// `address` inside `text` as a whole token.
bool mentions(const std::string& text, const std::string& address) {
    for (auto at = text.find(address); at != std::string::npos; at = text.find(address, at + 1)) {
        const bool starts = at == 0 || !(continues_address(text, at - 1) || text[at - 1] == '.');
        if (starts && !continues_address(text, at + address.size())) return true;
    }
    return false;
}

}  // namespace

std::string escape_dollars(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        out += text[i];
        if (text[i] == '$' && i + 1 < text.size() && (text[i + 1] == '$' || text[i + 1] == '(')) out += '$';
    }
    return out;
}

TemplatedProgram template_unit(const plan::Stage& stage, const plan::Unit& unit, const TemplateInput& input) {
    TemplatedProgram out;
    out.env.push_back(pod_ip_env(kPodIpVar));
    runtime::ProgramSpec program;
    program.argv = template_words(stage, unit, input, out);
    // BOOTSTRAP is shell text run by `sh -c`: escaped like any word, never templated.
    program.bootstrap = escape_dollars(unit.program.bootstrap);
    out.argv = runtime::launch_argv(program);
    for (const auto& entry : unit.program.env) {
        if (entry.secret) {
            out.env.push_back(secret_env(entry.key, input.secret_name, entry.key));
            out.secret_keys.insert(entry.key);
        } else if (entry.value == unit.compute_address) {
            // SGLANG_HOST_IP and the like: the node's own address, which under hostNetwork is the pod's.
            out.env.push_back(pod_ip_env(entry.key));
        } else {
            out.env.push_back(Tree{{"name", entry.key}, {"value", escape_dollars(entry.value)}});
        }
    }
    return out;
}

std::vector<std::string> leftover_addresses(const TemplatedProgram& program,
                                            const std::vector<config::Node>& nodes) {
    std::vector<std::string> found;
    auto check = [&](const std::string& text, const std::string& what) {
        for (const auto& node : nodes)
            for (const auto* address : {&node.address, &node.compute_address})
                if (!address->empty() && mentions(text, *address)) {
                    found.push_back(what + " names " + *address + " (node " + node.name + ")");
                    return;
                }
    };
    for (const auto& word : program.argv) check(word, "argument `" + word + "`");
    for (const auto& env : program.env)
        if (env.contains("value"))
            check(env["value"].get<std::string>(), "env " + env["name"].get<std::string>());
    return found;
}

}  // namespace pdctl::exporter::detail

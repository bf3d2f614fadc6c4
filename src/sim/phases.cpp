#include "sim/phases.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/log.hpp"

namespace pdsim {
namespace {

constexpr std::array<std::string_view, kPhaseCount> kNames = {"init", "weights", "kv", "cuda-graph",
                                                              "warmup"};
constexpr std::array<const char*, kPhaseCount> kDurationVars = {
    "PDSIM_INIT_MS", "PDSIM_WEIGHTS_MS", "PDSIM_KV_MS", "PDSIM_CUDA_GRAPH_MS", "PDSIM_WARMUP_MS"};

[[noreturn]] void bad_knob(const char* name, const std::string& value, std::string_view expected) {
    std::fprintf(stderr, "pdsim: %s=%s: expected %.*s\n", name, value.c_str(),
                 static_cast<int>(expected.size()), expected.data());
    exit_now(2);
}

std::optional<long> env_long(const char* name) {
    const char* raw = std::getenv(name);
    if (raw == nullptr || *raw == '\0') {
        return std::nullopt;
    }
    char* end = nullptr;
    long value = std::strtol(raw, &end, 10);
    if (*end != '\0' || value < 0) {
        bad_knob(name, raw, "a non-negative integer");
    }
    return value;
}

std::optional<Phase> env_phase(const char* name) {
    const char* raw = std::getenv(name);
    if (raw == nullptr || *raw == '\0') {
        return std::nullopt;
    }
    for (int i = 0; i < kPhaseCount; ++i) {
        if (kNames[static_cast<std::size_t>(i)] == raw) {
            return static_cast<Phase>(i);
        }
    }
    bad_knob(name, raw, "one of init, weights, kv, cuda-graph, warmup");
}

Fault env_fault(const char* at_var, const char* rank_var) {
    Fault fault;
    fault.phase = env_phase(at_var);
    if (auto rank = env_long(rank_var)) {
        fault.rank = static_cast<int>(*rank);
    }
    return fault;
}

}  // namespace

std::string_view phase_name(Phase phase) {
    return kNames[static_cast<std::size_t>(phase)];
}

Knobs load_knobs() {
    Knobs knobs;
    Millis base{env_long("PDSIM_PHASE_MS").value_or(200)};
    for (std::size_t i = 0; i < kDurationVars.size(); ++i) {
        auto own = env_long(kDurationVars[i]);
        knobs.durations[i] = own ? Millis{*own} : base;
    }
    knobs.crash = env_fault("PDSIM_CRASH_AT", "PDSIM_CRASH_RANK");
    knobs.hang = env_fault("PDSIM_HANG_AT", "PDSIM_HANG_RANK");
    knobs.compile = Millis{env_long("PDSIM_COMPILE_MS").value_or(0)};
    knobs.dist_timeout = Millis{env_long("PDSIM_DIST_TIMEOUT_MS").value_or(600000)};
    knobs.peer_death = Millis{env_long("PDSIM_PEER_DEATH_MS").value_or(1000)};
    knobs.router_check = Millis{env_long("PDSIM_ROUTER_CHECK_MS").value_or(500)};
    knobs.router_drain = Millis{env_long("PDSIM_ROUTER_DRAIN_MS").value_or(5000)};
    knobs.kv_timeout = Millis{env_long("PDSIM_KV_TIMEOUT_MS").value_or(10000)};
    knobs.capacity = load_capacity_knobs();
    knobs.hcas = static_cast<int>(env_long("PDSIM_HCAS").value_or(-1));
    if (const char* fault = std::getenv("PDSIM_HEALTH_FAULT"); fault != nullptr && *fault != '\0') {
        knobs.health_fault = fault;
        if (knobs.health_fault != "slow" && knobs.health_fault != "500" && knobs.health_fault != "garbage") {
            bad_knob("PDSIM_HEALTH_FAULT", knobs.health_fault, "slow|500|garbage");
        }
    }
    knobs.health_delay = Millis{env_long("PDSIM_HEALTH_DELAY_MS").value_or(30000)};
    if (const char* fault = std::getenv("PDSIM_KV_FAULT"); fault != nullptr && *fault != '\0') {
        knobs.kv_fault = fault;
        if (knobs.kv_fault != "bootstrap" && knobs.kv_fault != "transfer" && knobs.kv_fault != "retry")
            bad_knob("PDSIM_KV_FAULT", knobs.kv_fault, "bootstrap|transfer|retry");
    }
    knobs.master_ready = Millis{env_long("PDSIM_MASTER_READY_MS").value_or(0)};
    if (const char* health = std::getenv("PDSIM_MASTER_HEALTH"); health != nullptr && *health != '\0') {
        if (std::string_view(health) != "plain" && std::string_view(health) != "json")
            bad_knob("PDSIM_MASTER_HEALTH", health, "plain|json");
        knobs.master_plain_health = std::string_view(health) == "plain";
    }
    return knobs;
}

}  // namespace pdsim

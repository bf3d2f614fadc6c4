#include "pdctl/doctor/gpu_use.hpp"

#include <fmt/format.h>

#include "embedded/doctor_scripts.hpp"
#include "text.hpp"

namespace pdctl::doctor {
namespace {

// Said instead of running nvidia-smi where there is none; a line nvidia-smi itself never prints.
constexpr std::string_view kNoNvidiaSmi = "pdctl: no nvidia-smi";

}  // namespace

exec::Command gpu_apps_command() {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::gpu_apps), "pdctl-gpu-apps", std::string(kNoNvidiaSmi)};
    // nvidia-smi on a wedged driver can hang: a stop waits for its answer at most this long per poll.
    command.timeout = std::chrono::seconds(15);
    return command;
}

GpuApps read_gpu_apps(const exec::CommandResult& answer) {
    GpuApps result;
    if (!answer.transport_error.empty()) {
        result.nvidia_smi = true;  // unknown: it may well hold GPUs
        result.error = answer.transport_error;
        return result;
    }
    if (detail::trim(answer.out) == kNoNvidiaSmi) return result;
    result.nvidia_smi = true;
    if (answer.timed_out) {
        result.error =
            "nvidia-smi did not answer within " +
            std::to_string(
                std::chrono::duration_cast<std::chrono::seconds>(gpu_apps_command().timeout).count()) +
            "s";
        return result;
    }
    if (answer.exit_code != 0) {
        const auto& text = answer.err.empty() ? answer.out : answer.err;
        result.error = fmt::format("nvidia-smi exited {}: {}", answer.exit_code, detail::trim(text));
        return result;
    }
    auto parsed = parse_compute_apps(answer.out);
    result.apps = std::move(parsed.apps);
    result.error = std::move(parsed.error);
    return result;
}

std::string describe(const ComputeApp& app) {
    return app.used_mib >= 0 ? fmt::format("pid {} {} {} MiB", app.pid, app.name, app.used_mib)
                             : fmt::format("pid {} {}", app.pid, app.name);
}

}  // namespace pdctl::doctor

// libFuzzer target: the parsers of what nodes print back over SSH: the doctor's probe (its tab-separated
// facts and the nvidia-smi CSV inside), the push probe (mode + sha256 per path), the runtimes' inspect
// answers (process state files, docker/podman labels) and `logs --follow` chunks with their cursors.
// The first byte says how many paths the push probe asked about; the rest is the node's stdout.
#include <cstddef>
#include <cstdint>
#include <string>

#include "pdctl/doctor/facts.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/runtime/container_runtime.hpp"
#include "pdctl/runtime/log_query.hpp"
#include "pdctl/runtime/process_runtime.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pdctl;
    if (size == 0) return 0;
    const std::size_t paths = data[0] % 8;
    const std::string output(reinterpret_cast<const char*>(data + 1), size - 1);

    (void)doctor::parse_probe_output(output);
    (void)doctor::parse_gpu_query(output);
    (void)doctor::parse_compute_apps(output);
    (void)doctor::kernel_version(output);
    (void)push::parse_probe(output, paths);

    runtime::RuntimeSpec process;
    process.kind = config::RuntimeKind::Process;
    process.state_dir = "/tmp/pdctl-state";
    runtime::RuntimeSpec docker;
    docker.kind = config::RuntimeKind::Docker;
    docker.cli = "docker";
    docker.image = "lmsysorg/sglang:latest";
    (void)runtime::ProcessRuntime(process, "/tmp/pdctl-state/c/n1").parse_inspect(output);
    (void)runtime::ContainerRuntime(docker, "/tmp/pdctl-state/c/n1").parse_inspect(output);

    const runtime::LogCursor cursor{static_cast<long long>(paths) * 100, "2026-11-29T08:12:03.000000000Z"};
    (void)runtime::parse_log_chunk(process, output, cursor);
    (void)runtime::parse_log_chunk(docker, output, cursor);
    (void)runtime::normalize_rfc3339(output);
    (void)runtime::parse_since(output);
    return 0;
}

#pragma once
// The nvidia-smi stand-in of the SSH test hosts: a stub on the SSH session's PATH (delivered through
// ~/.ssh/environment; up.sh sets PermitUserEnvironment) that prints the recorded H200 answers of
// tests/fixtures/. Used by the doctor and preflight tests (faults per host) and by the scenario tests
// (eight idle GPUs per host, so the hosts look like the GPU nodes of a real cluster).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

// Writes /root/fake-bin/nvidia-smi answering --query-gpu with $1 and --query-compute-apps with $2.
// A file busy-polls holding N makes the next N compute-apps answers list busy-apps.csv instead (a GPU
// released a few polls late).
inline constexpr const char* kInstallNvidiaSmiStub = R"SH(
mkdir -p /root/fake-bin
printf '%s' "$1" >/root/fake-bin/query.csv
printf '%s' "$2" >/root/fake-bin/apps.csv
cat >/root/fake-bin/nvidia-smi <<'STUB'
#!/bin/sh
case "$1" in
  --query-gpu=*) cat /root/fake-bin/query.csv ;;
  --query-compute-apps=*)
    n=$(cat /root/fake-bin/busy-polls 2>/dev/null || echo 0)
    if [ "$n" -gt 0 ]; then echo $((n - 1)) >/root/fake-bin/busy-polls; cat /root/fake-bin/busy-apps.csv
    else cat /root/fake-bin/apps.csv; fi ;;
  *) echo "nvidia-smi stub: unsupported $*" >&2; exit 2 ;;
esac
STUB
chmod 0755 /root/fake-bin/nvidia-smi
)SH";

inline constexpr const char* kStubPath =
    "PATH=/root/fake-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

inline std::string gpu_fixture(const std::string& name) {
    std::ifstream in(std::filesystem::path(pdctl::testing::source_dir()) / "tests" / "fixtures" / name,
                     std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The recorded idle H200's --query-gpu line ("0, 0, 143771"), once per GPU index.
inline std::string idle_gpu_query(int gpus) {
    const auto line = gpu_fixture("nvidia-smi-h200-idle.query-gpu.csv");
    const auto rest = line.substr(line.find(','));
    std::string out;
    for (int index = 0; index < gpus; ++index) out += std::to_string(index) + rest;
    return out;
}

}  // namespace pdctl::testing

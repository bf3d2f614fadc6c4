#include "sim/stack_frames.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/log.hpp"

namespace pdsim {
namespace {

// Where the stacks live: one file per process, shared by the rank and the stand-in on the same
// node (or in the same container).
std::filesystem::path frame_file(long pid) {
    const char* dir = std::getenv("PDSIM_FRAME_DIR");
    const std::filesystem::path base = dir && *dir ? dir : std::filesystem::temp_directory_path();
    return base / ("pdsim-frame-" + std::to_string(pid));
}

// Innermost frame first, as py-spy prints them. Names and files as in SGLang v0.5.x and torch.
std::vector<std::string> frames(Step step) {
    const std::vector<std::string> runner = {
        "initialize (sglang/srt/model_executor/model_runner.py:276)",
        "__init__ (sglang/srt/model_executor/model_runner.py:240)",
        "__init__ (sglang/srt/managers/tp_worker.py:84)",
        "__init__ (sglang/srt/managers/scheduler.py:318)",
        "run_scheduler_process (sglang/srt/managers/scheduler.py:2931)",
    };
    std::vector<std::string> top;
    switch (step) {
        case Step::kRendezvous:
            top = {"_store_based_barrier (torch/distributed/distributed_c10d.py:4434)",
                   "init_process_group (torch/distributed/distributed_c10d.py:1720)",
                   "init_distributed_environment (sglang/srt/distributed/parallel_state.py:1190)",
                   "init_torch_distributed (sglang/srt/model_executor/model_runner.py:568)"};
            break;
        case Step::kLoadingWeights:
            top = {"load_weights (sglang/srt/models/deepseek_v2.py:2391)",
                   "load_model (sglang/srt/model_loader/loader.py:482)",
                   "load_model (sglang/srt/model_executor/model_runner.py:716)"};
            break;
        case Step::kMemoryProfiling:
            top = {"all_reduce (torch/distributed/distributed_c10d.py:2501)",
                   "get_available_gpu_memory (sglang/srt/utils/common.py:431)",
                   "profile_max_num_token (sglang/srt/model_executor/model_runner.py:1204)",
                   "init_memory_pool (sglang/srt/model_executor/model_runner.py:1298)"};
            break;
        case Step::kKvCache:
            top = {"_create_buffers (sglang/srt/mem_cache/memory_pool.py:622)",
                   "__init__ (sglang/srt/mem_cache/memory_pool.py:561)",
                   "init_memory_pool (sglang/srt/model_executor/model_runner.py:1386)"};
            break;
        case Step::kCudaGraphs:
            top = {"capture (sglang/srt/model_executor/cuda_graph_runner.py:423)",
                   "__init__ (sglang/srt/model_executor/cuda_graph_runner.py:301)",
                   "init_device_graphs (sglang/srt/model_executor/model_runner.py:1907)"};
            break;
        case Step::kServing:
            return {"broadcast_pyobj (sglang/srt/utils/common.py:1118)",
                    "recv_requests (sglang/srt/managers/scheduler.py:1052)",
                    "event_loop_normal (sglang/srt/managers/scheduler.py:903)",
                    "run_scheduler_process (sglang/srt/managers/scheduler.py:2950)"};
        case Step::kWarmup:
            return {"_execute_server_warmup (sglang/srt/entrypoints/http_server.py:1254)",
                    "_wait_and_warmup (sglang/srt/entrypoints/http_server.py:1330)",
                    "run (threading.py:953)"};
    }
    top.insert(top.end(), runner.begin(), runner.end());
    return top;
}

std::string command_line(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& c : text)
        if (c == '\0') c = ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    exit_now(1);
}

}  // namespace

void record_step(Step step) {
    const auto pid = static_cast<long>(::getpid());
    const auto path = frame_file(pid);
    const auto temporary = path.string() + ".new";
    {
        std::ofstream out(temporary, std::ios::trunc);
        for (const auto& frame : frames(step)) out << "    " << frame << "\n";
    }
    std::error_code ignored;
    std::filesystem::rename(temporary, path, ignored);
}

void forget_step() {
    std::error_code ignored;
    std::filesystem::remove(frame_file(static_cast<long>(::getpid())), ignored);
}

void run_py_spy(std::span<const std::string> argv) {
    if (argv.empty() || argv[0] != "dump") fail("pdsim py-spy: only `dump --pid PID` is simulated");
    long pid = 0;
    for (std::size_t i = 1; i + 1 < argv.size(); ++i)
        if (argv[i] == "--pid" || argv[i] == "-p") pid = std::strtol(argv[i + 1].c_str(), nullptr, 10);
    if (pid <= 0) fail("error: the following required arguments were not provided:\n  --pid <pid>");
    if (!std::filesystem::exists("/proc/" + std::to_string(pid)))
        fail("Error: Failed to find process " + std::to_string(pid));
    // A container without SYS_PTRACE (sglang #33549), as py-spy words it.
    if (const char* fault = std::getenv("PDSIM_PY_SPY_FAULT"); fault && std::string(fault) == "ptrace")
        fail(
            "Permission Denied: Try running again with elevated permissions by going 'sudo env "
            "\"PATH=$PATH\" !!'");
    std::ifstream in(frame_file(pid));
    if (!in) fail("Error: Failed to find python version from target process");
    std::stringstream stack;
    stack << in.rdbuf();
    std::printf(
        "Process %ld: %s\nPython v3.10.12 (/usr/bin/python3.10)\n\nThread %ld (active): \"MainThread\"\n%s",
        pid, command_line(pid).c_str(), pid, stack.str().c_str());
    std::fflush(stdout);
    exit_now(0);
}

}  // namespace pdsim

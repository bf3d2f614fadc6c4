#pragma once
// What a `py-spy dump` of a simulated SGLang rank shows. Each rank records the Python stack a real
// scheduler process would be in at its current step (a file per process); the stand-in `pdsim py-spy`
// reads it for the pid it is given, so `pdctl stack` sees a hung rank where the real one would be.

#include <span>
#include <string>

namespace pdsim {

enum class Step {
    kRendezvous,       // torch.distributed init
    kLoadingWeights,   //
    kMemoryProfiling,  // the all-reduce of free memory before the KV cache is sized
    kKvCache,          // allocating the KV pool
    kCudaGraphs,       //
    kServing,          // the scheduler's event loop: every member meets in broadcast_pyobj
    kWarmup,           // rank 0's warm-up request
};

// Records this process's current step (atomically: a dump never reads half a stack).
void record_step(Step step);

// Removes this process's record (on exit: the pid may be reused).
void forget_step();

// `pdsim py-spy dump --pid PID [--subprocesses] [...]`: prints the recorded stack of PID as py-spy
// does, or py-spy's errors (no such process, not a Python process, no ptrace permission).
[[noreturn]] void run_py_spy(std::span<const std::string> argv);

}  // namespace pdsim

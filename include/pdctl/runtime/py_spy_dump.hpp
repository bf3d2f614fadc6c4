#pragma once
// `py-spy dump` output, read: processes, their threads, each thread's frames innermost first. Pure.
//
//   Process 4242: python3 -m sglang.launch_server --model-path ...
//   Python v3.10.12 (/usr/bin/python3.10)
//
//   Thread 4242 (active): "MainThread"
//       all_reduce (torch/distributed/distributed_c10d.py:2501)
//       ...

#include <string>
#include <vector>

namespace pdctl::runtime {

struct PyThread {
    std::string header;  // `Thread 4242 (active): "MainThread"`
    std::string name;    // MainThread
    std::vector<std::string> frames;
};

struct PyProcess {
    std::string header;  // `Process 4242: python3 -m sglang.launch_server ...`
    std::vector<PyThread> threads;
};

std::vector<PyProcess> parse_py_spy_dump(const std::string& text);

// `all_reduce (torch/distributed/distributed_c10d.py:2501)` without its line number, so that the same
// place in two builds (or two calls of it) compares equal: `all_reduce
// (torch/distributed/distributed_c10d.py)`.
std::string frame_place(const std::string& frame);

// Where a dump is: the innermost frame (as frame_place) of each process's main thread (its first
// thread when none is called MainThread), each once, in process order.
std::vector<std::string> top_places(const std::vector<PyProcess>& processes);

}  // namespace pdctl::runtime

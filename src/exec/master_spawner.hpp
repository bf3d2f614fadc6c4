#pragma once
// Internal to the OpenSSH transport (openssh_executor.cpp): starts the ssh master processes.

#include <sys/types.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"

namespace pdctl::exec::detail {

// Masters are forked from this one thread, which lives as long as the executor: PR_SET_PDEATHSIG
// follows the forking thread, and the engine's worker threads come and go.
class MasterSpawner {
  public:
    MasterSpawner() : thread_([this] { loop(); }) {}
    ~MasterSpawner() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }
    MasterSpawner(const MasterSpawner&) = delete;
    MasterSpawner& operator=(const MasterSpawner&) = delete;

    pid_t spawn(std::vector<std::string> argv, const std::vector<std::string>& environment,
                const std::string& stderr_path) {
        std::packaged_task<pid_t()> task([argv = std::move(argv), &environment, &stderr_path] {
            return detail::spawn_background(argv, environment, stderr_path);
        });
        auto result = task.get_future();
        {
            std::lock_guard lock(mutex_);
            tasks_.push(std::move(task));
        }
        wake_.notify_all();
        return result.get();
    }

  private:
    void loop() {
        std::unique_lock lock(mutex_);
        while (true) {
            wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
            if (tasks_.empty()) return;
            auto task = std::move(tasks_.front());
            tasks_.pop();
            lock.unlock();
            task();
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::queue<std::packaged_task<pid_t()>> tasks_;
    bool stopping_ = false;
    std::thread thread_;  // last: starts once the members above exist
};

}  // namespace pdctl::exec::detail

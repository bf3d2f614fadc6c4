#pragma once
// Debian's docker-registry (distribution 2.8) on the SSH test cluster's bridge address ($PDT_REGISTRY,
// plain HTTP, every host's registries.conf marks it insecure), its storage in the test's temporary
// directory: what `pdctl pull` and a rollout's new image tag are fetched from (ssh_pull_test.cpp,
// ssh_rollout_test.cpp). PR_SET_PDEATHSIG: if the test process dies, the kernel kills the registry too.
#include <fcntl.h>
#include <httplib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include "ssh_cluster.hpp"

namespace pdctl::testing {

class TestRegistry {
  public:
    TestRegistry() = default;
    TestRegistry(const TestRegistry&) = delete;
    TestRegistry& operator=(const TestRegistry&) = delete;
    ~TestRegistry() { stop(); }

    // Serves `address` (host:port) from `dir`; "" once GET /v2/ answers 200, else why not (bounded).
    std::string start(const std::filesystem::path& dir, const std::string& address) {
        const auto config = dir / "registry.yml";
        spit(config, "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: " +
                         (dir / "registry").string() + "\nhttp:\n  addr: " + address + "\n");
        const auto log = (dir / "registry.log").string();
        const pid_t parent = ::getpid();
        pid_ = ::fork();
        if (pid_ < 0) return "fork failed";
        if (pid_ == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(127);
            const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                ::dup2(fd, 1);
                ::dup2(fd, 2);
            }
            ::execl("/usr/bin/docker-registry", "docker-registry", "serve", config.c_str(),
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // Ready when GET /v2/ answers 200; it fails at once if the registry exited.
        const auto colon = address.rfind(':');
        httplib::Client client(address.substr(0, colon), std::stoi(address.substr(colon + 1)));
        client.set_connection_timeout(std::chrono::milliseconds(200));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
        while (std::chrono::steady_clock::now() < deadline) {
            if (auto answer = client.Get("/v2/"); answer && answer->status == 200) return "";
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return "docker-registry exited at start: " + slurp(log);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return "docker-registry did not answer on " + address + " within 15 s: " + slurp(log);
    }

    void stop() {
        if (pid_ <= 0) return;
        stop_test_process(pid_);  // SIGTERM, bounded wait, SIGKILL
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

  private:
    pid_t pid_ = -1;
};

}  // namespace pdctl::testing

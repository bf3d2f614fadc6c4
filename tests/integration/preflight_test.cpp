// The start preflight on the simulated cluster (real processes on loopback, real `ss`): a port a unit
// will bind that something else holds stops the start before anything runs, naming the holder; the
// run's output and journal say the preflight ran, or that it was skipped.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

// A TCP listener of this test process on HOST:PORT, closed when it goes out of scope.
class Squatter {
  public:
    Squatter(const std::string& host, int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        ::inet_pton(AF_INET, host.c_str(), &address.sin_addr);
        const int on = 1;
        ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        bound_ =
            ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && ::listen(fd_, 4) == 0;
    }
    ~Squatter() { ::close(fd_); }
    Squatter(const Squatter&) = delete;
    Squatter& operator=(const Squatter&) = delete;
    bool bound() const { return bound_; }

  private:
    int fd_;
    bool bound_ = false;
};

TEST(Preflight, APortTakenOnANodeStopsTheStartBeforeAnythingRunsNamingItsHolder) {
    SimCluster cluster("preport", 96);
    Squatter squatter("127.0.96.5", 31000);  // the router's --port on n5
    ASSERT_TRUE(squatter.bound());
    const auto start = cluster.run({"start"});
    EXPECT_EQ(start.exit_code, 10) << start.out << start.err;
    const auto all = start.out + start.err;
    EXPECT_NE(all.find("PORT001 port 31000 that router rank 0 (--port) binds on n5 is taken: "),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("pid " + std::to_string(::getpid()) + " listens on 127.0.96.5:31000"),
              std::string::npos)
        << all;
    EXPECT_EQ(all.find("started mooncake-master"), std::string::npos)
        << "something started before the preflight";
    const auto status = cluster.run({"status"});
    EXPECT_EQ(status.exit_code, 8) << status.out;  // stopped: nothing of it runs
}

TEST(Preflight, APassAndASkipAreBothInTheJournal) {
    SimCluster cluster("preskip", 97);
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    EXPECT_NE(start.out.find("preflight passed on 8 nodes"), std::string::npos) << start.out;
    const auto restart = cluster.run({"restart", "--skip-preflight"});
    ASSERT_EQ(restart.exit_code, 0) << restart.out << restart.err;
    const auto journal = read_text(cluster.state_dir() / "journal.jsonl");
    EXPECT_NE(journal.find("preflight passed on 8 nodes"), std::string::npos) << journal;
    EXPECT_NE(journal.find("preflight skipped (--skip-preflight)"), std::string::npos) << journal;
    EXPECT_EQ(cluster.run({"stop"}).exit_code, 0);
}

}  // namespace
}  // namespace pdctl::testing

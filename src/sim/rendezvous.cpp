#include "sim/rendezvous.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "sim/log.hpp"

namespace pdsim {
namespace {

using Clock = std::chrono::steady_clock;

Millis remaining(Clock::time_point deadline) {
    return std::max(Millis{0}, std::chrono::duration_cast<Millis>(deadline - Clock::now()));
}

// Handshake line a worker sends: "rank <node_rank> nnodes <nnodes>".
bool parse_hello(const std::string& line, int& rank, int& nnodes) {
    return std::sscanf(line.c_str(), "rank %d nnodes %d", &rank, &nnodes) == 2;
}

}  // namespace

void Rendezvous::listen() {
    std::string error;
    listener_ = listen_tcp(config_.dist_init.host, config_.dist_init.port, error);
    if (!listener_.valid()) {
        log_schedf(
            config_.tp_rank,
            "Scheduler hit an exception: torch.distributed.DistNetworkError: The server socket has failed "
            "to listen on {}:{} ({})",
            config_.dist_init.host, config_.dist_init.port, error);
        exit_now(1);
    }
}

void Rendezvous::join() {
    if (config_.node_rank == 0) {
        join_as_master();
    } else {
        join_as_worker();
    }
}

void Rendezvous::join_as_master() {
    const auto deadline = Clock::now() + config_.timeout;
    const auto expected = static_cast<std::size_t>(config_.nnodes - 1);
    while (peers_.size() < expected) {
        if (remaining(deadline).count() == 0) {
            log_schedf(
                config_.tp_rank,
                "Scheduler hit an exception: torch.distributed.DistStoreError: Timed out after {} seconds "
                "waiting for clients. {}/{} clients joined.",
                config_.timeout.count() / 1000, peers_.size() + 1, config_.nnodes);
            exit_now(1);
        }
        Socket peer = accept_for(listener_, std::min(remaining(deadline), Millis{200}));
        if (!peer.valid()) {
            continue;
        }
        auto hello = recv_line(peer, Millis{1000});
        int rank = -1;
        int nnodes = -1;
        if (!hello || !parse_hello(*hello, rank, nnodes)) {
            continue;  // not one of ours (a port scan, a health probe): drop it
        }
        bool known =
            std::any_of(peers_.begin(), peers_.end(), [&](const auto& p) { return p.first == rank; });
        if (nnodes != config_.nnodes || rank < 1 || rank >= config_.nnodes || known) {
            // Closing the link makes the misconfigured node fail instead of hanging.
            log_schedf(config_.tp_rank,
                       "Rejected rendezvous from node rank {} with nnodes={} (expected nnodes={})", rank,
                       nnodes, config_.nnodes);
            continue;
        }
        peers_.emplace_back(rank, std::move(peer));
    }
    for (auto& [rank, link] : peers_) {
        send_all(link, "ready\n");
    }
    // No one else may join a formed group, but the port stays bound for the life of the process, as
    // torch.distributed's TCPStore server on rank 0 does: a second group started on the same
    // dist-init address beside this one fails to listen there, as it would upstream.
}

void Rendezvous::join_as_worker() {
    const auto deadline = Clock::now() + config_.timeout;
    std::string error;
    while (!master_link_.valid()) {
        master_link_ = connect_tcp(config_.dist_init.host, config_.dist_init.port,
                                   std::min(remaining(deadline), Millis{1000}), error);
        if (master_link_.valid()) {
            break;
        }
        if (remaining(deadline).count() == 0) {
            log_schedf(
                config_.tp_rank,
                "Scheduler hit an exception: torch.distributed.DistNetworkError: Failed to connect to {}:{} "
                "within {} seconds: {}",
                config_.dist_init.host, config_.dist_init.port, config_.timeout.count() / 1000, error);
            exit_now(1);
        }
        sleep_ms(std::min(remaining(deadline), Millis{100}));
    }
    send_all(master_link_, fmt::format("rank {} nnodes {}\n", config_.node_rank, config_.nnodes));
    auto reply = recv_line(master_link_, std::max(remaining(deadline), Millis{1}));
    if (!reply || *reply != "ready") {
        log_schedf(
            config_.tp_rank,
            "Scheduler hit an exception: torch.distributed.DistStoreError: rendezvous with rank 0 at {}:{} "
            "failed ({})",
            config_.dist_init.host, config_.dist_init.port,
            reply ? "rejected" : "connection closed or timed out");
        exit_now(1);
    }
}

// Lines on a formed group's links: a member that reached a step says "at <step>", rank 0 answers
// "go <step>" once all have.
void Rendezvous::monitor() {
    if (config_.node_rank == 0) {
        for (auto& [rank, link] : peers_) {
            // peers_ no longer changes, so the pointer stays valid for the life of the process.
            std::thread([this, rank = rank, peer = &link] {
                while (const auto line = recv_line_until_closed(*peer)) {
                    if (line->rfind("at ", 0) == 0) {
                        const std::lock_guard lock(mutex_);
                        ++arrived_[line->substr(3)];
                        changed_.notify_all();
                    }
                }
                sleep_ms(config_.peer_death);
                log_mainf("Rank {} scheduler is dead. Please check if there are relevant logs.", rank);
                exit_now(1);
            }).detach();
        }
        return;
    }
    std::thread([this] {
        while (const auto line = recv_line_until_closed(master_link_)) {
            if (line->rfind("go ", 0) == 0) {
                const std::lock_guard lock(mutex_);
                released_.insert(line->substr(3));
                changed_.notify_all();
            }
        }
        sleep_ms(config_.peer_death);
        log_schedf(
            config_.tp_rank,
            "Scheduler hit an exception: torch.distributed.DistBackendError: NCCL communicator was aborted: "
            "the connection to rank 0 ({}:{}) was lost",
            config_.dist_init.host, config_.dist_init.port);
        exit_now(1);
    }).detach();
}

void Rendezvous::barrier(const std::string& step) {
    if (config_.node_rank == 0) {
        std::unique_lock lock(mutex_);
        const auto others = static_cast<int>(peers_.size());
        changed_.wait(lock, [&] { return arrived_[step] >= others; });
        lock.unlock();
        for (auto& [rank, link] : peers_) {
            send_all(link, "go " + step + "\n");
        }
        return;
    }
    send_all(master_link_, "at " + step + "\n");
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return released_.count(step) > 0; });
}

}  // namespace pdsim

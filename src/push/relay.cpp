#include "pdctl/push/relay.hpp"

#include <fmt/format.h>

#include "embedded/push_scripts.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::push {
namespace {

exec::Command relay_command(std::vector<std::string> args, std::chrono::milliseconds timeout) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::relay), "pdctl-relay"};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.timeout = timeout;
    return command;
}

}  // namespace

exec::Command relay_listen_command(const std::string& bind, int port, const std::string& temp,
                                   std::uint64_t size, const config::Node* next, int next_port) {
    std::vector<std::string> args = {"listen", bind, std::to_string(port), temp, std::to_string(size)};
    if (next) args.insert(args.end(), {next->compute(), std::to_string(next_port)});
    return relay_command(std::move(args), std::chrono::seconds(30));
}

exec::Command relay_follow_command(const std::string& temp, std::uint64_t size, const config::Node& next,
                                   int port) {
    return relay_command({"follow", temp, std::to_string(size), next.compute(), std::to_string(port)},
                         std::chrono::seconds(30));
}

exec::Command relay_wait_command(const std::string& temp, std::chrono::seconds timeout) {
    return relay_command({"wait", temp, std::to_string(timeout.count())}, timeout + std::chrono::seconds(30));
}

namespace {

// From the tail down to legs[from]: each node forwards to the nearest one after it that listens. A node
// that cannot listen is left out of the chain (the caller sends it the file directly); the others still
// relay. The first listening node's index, or legs.size() when none listens.
std::size_t start_listeners(exec::Executor& executor, std::vector<RelayLeg>& legs, std::size_t from,
                            std::uint64_t size, const RelayOptions& options) {
    std::size_t next = legs.size();
    for (std::size_t i = legs.size(); i-- > from;) {
        const auto listened =
            executor.run(*legs[i].node,
                         relay_listen_command(legs[i].node->compute(), options.port, legs[i].temp, size,
                                              next < legs.size() ? legs[next].node : nullptr, options.port));
        if (listened.ok())
            next = i;
        else
            legs[i].error = "relay: " + exec::failure_reason(listened);
    }
    return next;
}

// Who feeds whom once the listeners are up: the first listening leg from `head`, each later one from the
// listening leg before it.
void name_feeders(std::vector<RelayLeg>& legs, std::size_t from, const std::string& head) {
    std::string feeder = head;
    for (std::size_t i = from; i < legs.size(); ++i) {
        if (!legs[i].error.empty()) continue;
        legs[i].from = feeder;
        feeder = legs[i].node->name;
    }
}

// Listeners that will get nothing give up after their idle time; their legs say why.
void fail_listeners(std::vector<RelayLeg>& legs, std::size_t from, const std::string& why) {
    for (std::size_t i = from; i < legs.size(); ++i)
        if (legs[i].error.empty()) legs[i].error = why;
}

// Every listening leg from `from` on: done when its own part says it received the whole file, then
// given `mode`.
void wait_for_legs(exec::Executor& executor, std::vector<RelayLeg>& legs, std::size_t from,
                   std::uint64_t size, int mode, const RelayOptions& options) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(options.timeout);
    util::for_each_parallel(legs.size(), util::kEngineFanout, [&](std::size_t i) {
        if (i < from || !legs[i].error.empty()) return;
        const auto waited = executor.run(*legs[i].node, relay_wait_command(legs[i].temp, seconds));
        if (!waited.ok()) {
            legs[i].error = "relay: " + exec::failure_reason(waited);
            return;
        }
        exec::Command chmod;
        chmod.argv = {"chmod", fmt::format("{:o}", mode), legs[i].temp};
        chmod.timeout = std::chrono::seconds(30);
        const auto changed = executor.run(*legs[i].node, chmod);
        if (changed.ok()) {
            legs[i].arrived = true;
            legs[i].bytes = size;
        } else {
            legs[i].error = "relay: cannot set the mode: " + exec::failure_reason(changed);
        }
    });
}

}  // namespace

void relay_file(exec::Executor& executor, const std::string& source, std::uint64_t size, int mode,
                std::vector<RelayLeg>& legs, const RelayOptions& options) {
    if (legs.empty()) return;
    const auto next = start_listeners(executor, legs, 1, size, options);
    name_feeders(legs, 1, legs[0].node->name);
    if (next < legs.size()) {
        const auto followed = executor.run(
            *legs[0].node, relay_follow_command(legs[0].temp, size, *legs[next].node, options.port));
        if (!followed.ok())
            fail_listeners(legs, 1,
                           "relay: the first node could not forward: " + exec::failure_reason(followed));
    }
    // The first node's copy is the upload itself, which its follower forwards as it grows.
    const auto uploaded = executor.upload(*legs[0].node, source, legs[0].temp, mode, options.timeout);
    legs[0].bytes = uploaded.bytes;
    if (uploaded.ok()) {
        legs[0].arrived = true;
    } else {
        legs[0].error = uploaded.error;
        fail_listeners(legs, 1, "relay: nothing arrived from the first node");
    }
    wait_for_legs(executor, legs, 1, size, mode, options);
}

void relay_from_node(exec::Executor& executor, const config::Node& head, const std::string& path,
                     std::uint64_t size, int mode, std::vector<RelayLeg>& legs, const RelayOptions& options) {
    if (legs.empty()) return;
    const auto next = start_listeners(executor, legs, 0, size, options);
    if (next == legs.size()) return;
    name_feeders(legs, 0, head.name);
    const auto followed =
        executor.run(head, relay_follow_command(path, size, *legs[next].node, options.port));
    if (!followed.ok()) {
        fail_listeners(legs, 0, "relay: " + head.name + " could not send: " + exec::failure_reason(followed));
        return;
    }
    wait_for_legs(executor, legs, 0, size, mode, options);
}

}  // namespace pdctl::push

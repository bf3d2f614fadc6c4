#include "pdctl/push/pusher.hpp"

#include <algorithm>
#include <future>
#include <mutex>
#include <optional>
#include <random>
#include <set>

#include "pdctl/exec/command.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::push {
namespace {

std::string random_suffix() {
    thread_local std::mt19937_64 generator{std::random_device{}()};
    std::uniform_int_distribution<unsigned> digit(0, 15);
    std::string suffix;
    for (int i = 0; i < 12; ++i) suffix += "0123456789abcdef"[digit(generator)];
    return suffix;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

class NodeWorker {
  public:
    NodeWorker(exec::Executor& executor, const NodeFiles& plan, const std::map<std::string, LocalFile>& local,
               const PushOptions& options,
               const std::function<void(const FileOutcome&, std::size_t)>& settled)
        : executor_(executor), plan_(plan), local_(local), options_(options), settled_(settled) {}

    NodeOutcome run() {
        begin();
        send_all(prepare(), {});
        return finish();
    }

    // In steps, for `push --relay` (run_push): every node prepared first, then the files relayed, then
    // each node's own sends, of the files the relay brought (`arrived`: index -> temporary name) and
    // of the rest.
    void begin() {
        began_ = util::SteadyClock::now();
        outcome_.node = plan_.node.name;
        for (const auto& file : plan_.files) {
            FileOutcome entry;
            entry.source = file.source;
            entry.dest = file.dest;
            outcome_.files.push_back(std::move(entry));
        }
    }
    // The files the node lacks (settling the others), their directories made.
    std::vector<std::size_t> prepare() {
        auto to_send = decide();
        if (to_send.empty()) return to_send;
        std::vector<std::string> send_dests;
        send_dests.reserve(to_send.size());
        for (const auto i : to_send) send_dests.push_back(plan_.files[i].dest);
        const auto made = executor_.run(plan_.node, make_directories_command(send_dests));
        if (!made.ok()) {
            outcome_.unreachable = !made.transport_error.empty();
            fail_rest(to_send, 0, FileOutcome::Status::Failed,
                      "cannot create the parent directories: " + exec::failure_reason(made));
            return {};
        }
        return to_send;
    }
    void send_all(const std::vector<std::size_t>& to_send, const std::map<std::size_t, RelayLeg>& arrived) {
        for (std::size_t k = 0; k < to_send.size(); ++k) {
            if (options_.interrupted()) {
                fail_rest(to_send, k, FileOutcome::Status::Skipped, "interrupted");
                return;
            }
            const auto relayed = arrived.find(to_send[k]);
            if (!send(to_send[k], relayed == arrived.end() ? nullptr : &relayed->second)) {
                if (outcome_.unreachable) {
                    fail_rest(to_send, k + 1, FileOutcome::Status::Failed,
                              "not attempted: the connection broke");
                    return;
                }
            }
        }
    }
    NodeOutcome finish() {
        outcome_.elapsed = util::milliseconds_since(began_);
        return outcome_;
    }
    const config::Node& node() const { return plan_.node; }
    const config::FileSpec& file(std::size_t index) const { return plan_.files[index]; }

  private:
    void settle(std::size_t index, FileOutcome::Status status, std::string error = {}) {
        auto& file = outcome_.files[index];
        file.status = status;
        file.error = std::move(error);
        settled_(file, ++settled_count_);
    }

    void fail_rest(const std::vector<std::size_t>& indices, std::size_t from, FileOutcome::Status status,
                   const std::string& why) {
        for (std::size_t i = from; i < indices.size(); ++i) settle(indices[i], status, why);
    }

    // The source's digest, waited for only here: nothing before the comparison or the verification
    // needs it. nullopt, and the file failed, when the source could not be read.
    std::optional<std::string> local_digest(std::size_t index) {
        try {
            return local_.at(plan_.files[index].source).sha256.get();
        } catch (const std::exception& error) {
            settle(index, FileOutcome::Status::Failed, error.what());
            return std::nullopt;
        }
    }

    std::vector<std::size_t> decide() {
        std::vector<std::string> dests;
        for (const auto& file : plan_.files) dests.push_back(file.dest);
        const auto probed = executor_.run(plan_.node, probe_command(dests));
        std::vector<std::size_t> all(plan_.files.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
        if (!probed.transport_error.empty()) {
            outcome_.unreachable = true;
            fail_rest(all, 0, FileOutcome::Status::Failed, probed.transport_error);
            return {};
        }
        const auto remote = probed.ok() ? parse_probe(probed.out, dests.size()) : std::nullopt;
        if (!remote) {
            fail_rest(all, 0, FileOutcome::Status::Failed,
                      "cannot inspect the files: " + exec::failure_reason(probed));
            return {};
        }

        std::vector<std::size_t> to_send;
        for (std::size_t i = 0; i < plan_.files.size(); ++i) {
            const auto& spec = plan_.files[i];
            const auto& have = (*remote)[i];
            if (have.kind == RemoteFile::Kind::Other) {
                settle(i, FileOutcome::Status::Failed, spec.dest + " exists and is not a regular file");
            } else if (have.kind != RemoteFile::Kind::Regular) {
                to_send.push_back(i);  // absent: sent without waiting for the local digest
            } else if (const auto want = local_digest(i); !want) {
                continue;
            } else if (have.sha256 == *want) {
                fix_mode(i, have.mode);
            } else {
                to_send.push_back(i);
            }
        }
        return to_send;
    }

    void fix_mode(std::size_t index, int have_mode) {
        const auto& spec = plan_.files[index];
        if ((have_mode & 07777) == (spec.mode & 07777)) {
            settle(index, FileOutcome::Status::Identical);
            return;
        }
        const auto changed = executor_.run(plan_.node, chmod_command(spec.dest, spec.mode));
        if (changed.ok()) {
            settle(index, FileOutcome::Status::ModeFixed);
        } else {
            outcome_.unreachable = !changed.transport_error.empty();
            settle(index, FileOutcome::Status::Failed,
                   "cannot set the mode: " + exec::failure_reason(changed));
        }
    }

    // True when the file is in place. `relayed`: the file came through the relay's chain (arrived at
    // its temporary name, or not: then it is sent directly, as without --relay).
    bool send(std::size_t index, const RelayLeg* relayed) {
        const auto& spec = plan_.files[index];
        const auto& want = local_.at(spec.source);
        auto& file = outcome_.files[index];
        const auto began = relayed ? relay_began_ : util::SteadyClock::now();
        std::string temp;
        if (relayed && relayed->arrived) {
            temp = relayed->temp;
            file.bytes = relayed->bytes;
            file.relayed_from = relayed->from;
        } else {
            if (relayed) file.relay_error = relayed->error;
            temp = temporary_name(spec.dest, random_suffix());
            const auto uploaded =
                executor_.upload(plan_.node, spec.source, temp, spec.mode, upload_timeout(want.size));
            file.bytes = uploaded.bytes;
            if (!uploaded.ok()) {
                outcome_.unreachable = uploaded.transport_failed;
                file.elapsed = util::milliseconds_since(began);
                settle(index, FileOutcome::Status::Failed, uploaded.error);
                return false;
            }
        }
        const auto digest = local_digest(index);
        if (!digest) {
            executor_.run(plan_.node, remove_temporary_command(temp));
            return false;
        }
        const auto verified = executor_.run(plan_.node, verify_and_rename_command(temp, *digest, spec.dest));
        file.elapsed = util::milliseconds_since(began);
        if (verified.ok()) {
            settle(index, FileOutcome::Status::Sent);
            return true;
        }
        outcome_.unreachable = !verified.transport_error.empty();
        if (verified.exit_code == kChecksumMismatch) {
            settle(index, FileOutcome::Status::Failed,
                   "sha256 on the node is " + trimmed(verified.err) + ", expected " + *digest +
                       " (the upload was corrupted; the temporary file was removed)");
        } else {
            settle(index, FileOutcome::Status::Failed,
                   "cannot verify and rename " + temp + ": " + exec::failure_reason(verified));
        }
        return false;
    }

  public:
    // A floor plus the time at a pessimistic rate, so a 1 GiB wheel on a slow link is not cut off while a
    // stuck small file still fails in minutes.
    Duration upload_timeout(std::uint64_t size) const {
        const auto rate_bound =
            std::chrono::seconds(size / std::max<std::uint64_t>(1, options_.slowest_bytes_per_second));
        return std::max<Duration>(options_.min_upload_timeout, rate_bound);
    }
    void relay_began(util::SteadyClock::time_point at) { relay_began_ = at; }

  private:
    util::SteadyClock::time_point began_{};
    util::SteadyClock::time_point relay_began_{};
    exec::Executor& executor_;
    const NodeFiles& plan_;
    const std::map<std::string, LocalFile>& local_;
    const PushOptions& options_;
    const std::function<void(const FileOutcome&, std::size_t)>& settled_;
    NodeOutcome outcome_;
    std::size_t settled_count_ = 0;
};

}  // namespace

LocalFile LocalFile::hashed(std::string sha256, std::uint64_t size) {
    std::promise<std::string> digest;
    digest.set_value(std::move(sha256));
    return {digest.get_future().share(), size};
}

std::size_t NodeOutcome::in_place() const {
    return static_cast<std::size_t>(
        std::count_if(files.begin(), files.end(), [](const FileOutcome& f) { return f.in_place(); }));
}

std::uint64_t PushResult::bytes_sent() const {
    std::uint64_t total = 0;
    for (const auto& node : nodes)
        for (const auto& file : node.files) total += file.bytes;
    return total;
}

std::uint64_t PushResult::bytes_uploaded() const {
    std::uint64_t total = 0;
    for (const auto& node : nodes)
        for (const auto& file : node.files)
            if (file.relayed_from.empty()) total += file.bytes;
    return total;
}

bool PushResult::all_in_place() const {
    return std::all_of(nodes.begin(), nodes.end(),
                       [](const NodeOutcome& node) { return node.in_place() == node.files.size(); });
}

bool PushResult::any_unreachable() const {
    return std::any_of(nodes.begin(), nodes.end(), [](const NodeOutcome& node) { return node.unreachable; });
}

namespace {

// `push --relay`: every node probed and prepared at once, then each file that some nodes lack streamed
// once through the chain of those nodes (in plan order), then every node's sends: the relayed copies
// verified and placed, the rest (a node the chain did not reach) sent directly.
PushResult run_relayed_push(exec::Executor& executor, const std::vector<NodeFiles>& plan,
                            const std::map<std::string, LocalFile>& local, PushObserver& observer,
                            const PushOptions& options) {
    const auto began = util::SteadyClock::now();
    PushResult result;
    result.nodes.resize(plan.size());
    std::mutex observer_mutex;
    std::vector<std::function<void(const FileOutcome&, std::size_t)>> settled(plan.size());
    std::vector<std::unique_ptr<NodeWorker>> workers;
    for (std::size_t i = 0; i < plan.size(); ++i) {
        settled[i] = [&, i](const FileOutcome& file, std::size_t done) {
            std::lock_guard lock(observer_mutex);
            observer.file_done(plan[i].node.name, file, done, plan[i].files.size());
        };
        workers.push_back(std::make_unique<NodeWorker>(executor, plan[i], local, options, settled[i]));
    }
    std::vector<std::vector<std::size_t>> to_send(plan.size());
    util::for_each_parallel(plan.size(), options.max_parallel_nodes, [&](std::size_t i) {
        workers[i]->begin();
        to_send[i] = workers[i]->prepare();
    });
    // One chain per source and mode: the nodes that lack it, each with the first of its files from it.
    std::vector<std::map<std::size_t, RelayLeg>> arrived(plan.size());
    std::map<std::pair<std::string, int>, std::vector<std::pair<std::size_t, std::size_t>>> chains;
    for (std::size_t i = 0; i < plan.size(); ++i) {
        std::set<std::pair<std::string, int>> taken;
        for (const auto index : to_send[i]) {
            const auto& spec = workers[i]->file(index);
            if (taken.insert({spec.source, spec.mode}).second)
                chains[{spec.source, spec.mode}].push_back({i, index});
        }
    }
    for (const auto& [key, members] : chains) {
        if (options.interrupted()) break;
        if (members.size() < 2) continue;  // one node: a direct upload is the same copy
        std::vector<RelayLeg> legs;
        for (const auto& [i, index] : members)
            legs.push_back({&plan[i].node, temporary_name(workers[i]->file(index).dest, random_suffix()),
                            false, "", 0, ""});
        const auto relay_began = util::SteadyClock::now();
        auto relay = *options.relay;
        relay.timeout = workers[members.front().first]->upload_timeout(local.at(key.first).size);
        relay_file(executor, key.first, local.at(key.first).size, key.second, legs, relay);
        for (std::size_t k = 0; k < members.size(); ++k) {
            workers[members[k].first]->relay_began(relay_began);
            arrived[members[k].first][members[k].second] = legs[k];
        }
    }
    util::for_each_parallel(plan.size(), options.max_parallel_nodes, [&](std::size_t i) {
        workers[i]->send_all(to_send[i], arrived[i]);
        result.nodes[i] = workers[i]->finish();
        std::lock_guard lock(observer_mutex);
        observer.node_done(result.nodes[i]);
    });
    result.elapsed = util::milliseconds_since(began);
    return result;
}

}  // namespace

PushResult run_push(exec::Executor& executor, const std::vector<NodeFiles>& plan,
                    const std::map<std::string, LocalFile>& local, PushObserver& observer,
                    const PushOptions& options) {
    if (options.relay) return run_relayed_push(executor, plan, local, observer, options);
    const auto began = util::SteadyClock::now();
    PushResult result;
    result.nodes.resize(plan.size());
    std::mutex observer_mutex;
    util::for_each_parallel(plan.size(), options.max_parallel_nodes, [&](std::size_t i) {
        const std::function<void(const FileOutcome&, std::size_t)> settled = [&](const FileOutcome& file,
                                                                                 std::size_t done) {
            std::lock_guard lock(observer_mutex);
            observer.file_done(plan[i].node.name, file, done, plan[i].files.size());
        };
        NodeWorker worker(executor, plan[i], local, options, settled);
        result.nodes[i] = worker.run();
        std::lock_guard lock(observer_mutex);
        observer.node_done(result.nodes[i]);
    });
    result.elapsed = util::milliseconds_since(began);
    return result;
}

std::string to_string(FileOutcome::Status status) {
    switch (status) {
        case FileOutcome::Status::Sent:
            return "sent";
        case FileOutcome::Status::Identical:
            return "identical";
        case FileOutcome::Status::ModeFixed:
            return "mode fixed";
        case FileOutcome::Status::Failed:
            return "failed";
        case FileOutcome::Status::Skipped:
            return "skipped";
    }
    return "failed";
}

}  // namespace pdctl::push

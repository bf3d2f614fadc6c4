#include "pdctl/push/pusher.hpp"

#include <algorithm>
#include <future>
#include <mutex>
#include <optional>
#include <random>

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
        const auto began = util::SteadyClock::now();
        outcome_.node = plan_.node.name;
        for (const auto& file : plan_.files) {
            FileOutcome entry;
            entry.source = file.source;
            entry.dest = file.dest;
            outcome_.files.push_back(std::move(entry));
        }
        push_all();
        outcome_.elapsed = util::milliseconds_since(began);
        return outcome_;
    }

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

    void push_all() {
        std::vector<std::string> dests;
        for (const auto& file : plan_.files) dests.push_back(file.dest);
        const auto probed = executor_.run(plan_.node, probe_command(dests));
        std::vector<std::size_t> all(plan_.files.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
        if (!probed.transport_error.empty()) {
            outcome_.unreachable = true;
            fail_rest(all, 0, FileOutcome::Status::Failed, probed.transport_error);
            return;
        }
        const auto remote = probed.ok() ? parse_probe(probed.out, dests.size()) : std::nullopt;
        if (!remote) {
            fail_rest(all, 0, FileOutcome::Status::Failed,
                      "cannot inspect the files: " + exec::failure_reason(probed));
            return;
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
        if (to_send.empty()) return;

        std::vector<std::string> send_dests;
        send_dests.reserve(to_send.size());
        for (const auto i : to_send) send_dests.push_back(plan_.files[i].dest);
        const auto made = executor_.run(plan_.node, make_directories_command(send_dests));
        if (!made.ok()) {
            outcome_.unreachable = !made.transport_error.empty();
            fail_rest(to_send, 0, FileOutcome::Status::Failed,
                      "cannot create the parent directories: " + exec::failure_reason(made));
            return;
        }
        for (std::size_t k = 0; k < to_send.size(); ++k) {
            if (options_.interrupted()) {
                fail_rest(to_send, k, FileOutcome::Status::Skipped, "interrupted");
                return;
            }
            if (!send(to_send[k])) {
                if (outcome_.unreachable) {
                    fail_rest(to_send, k + 1, FileOutcome::Status::Failed,
                              "not attempted: the connection broke");
                    return;
                }
            }
        }
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

    // True when the file is in place.
    bool send(std::size_t index) {
        const auto& spec = plan_.files[index];
        const auto& want = local_.at(spec.source);
        auto& file = outcome_.files[index];
        const auto began = util::SteadyClock::now();
        const auto temp = temporary_name(spec.dest, random_suffix());
        const auto rate_bound =
            std::chrono::seconds(want.size / std::max<std::uint64_t>(1, options_.slowest_bytes_per_second));
        const auto timeout = std::max<Duration>(options_.min_upload_timeout, rate_bound);
        const auto uploaded = executor_.upload(plan_.node, spec.source, temp, spec.mode, timeout);
        file.bytes = uploaded.bytes;
        if (!uploaded.ok()) {
            outcome_.unreachable = uploaded.transport_failed;
            file.elapsed = util::milliseconds_since(began);
            settle(index, FileOutcome::Status::Failed, uploaded.error);
            return false;
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

bool PushResult::all_in_place() const {
    return std::all_of(nodes.begin(), nodes.end(),
                       [](const NodeOutcome& node) { return node.in_place() == node.files.size(); });
}

bool PushResult::any_unreachable() const {
    return std::any_of(nodes.begin(), nodes.end(), [](const NodeOutcome& node) { return node.unreachable; });
}

PushResult run_push(exec::Executor& executor, const std::vector<NodeFiles>& plan,
                    const std::map<std::string, LocalFile>& local, PushObserver& observer,
                    const PushOptions& options) {
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

#include "pdctl/pull/puller.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::pull {
namespace {

std::string describe_failure(const exec::CommandResult& result, Duration timeout) {
    if (!result.transport_error.empty()) return result.transport_error;
    const auto tail = stderr_tail(result.err);
    if (result.timed_out)
        return "timed out after " + std::to_string(timeout.count() / 1000) + " s (--timeout)" +
               (tail.empty() ? "" : ": " + tail);
    return tail.empty() ? "exit code " + std::to_string(result.exit_code) : tail;
}

// The pulls in flight, for the "still pulling" lines: node → (image, since when).
class InFlight {
  public:
    void begin(const std::string& node, const ImageRef& image) {
        std::lock_guard lock(mutex_);
        pulls_[node] = {image, util::SteadyClock::now()};
    }
    void end(const std::string& node) {
        std::lock_guard lock(mutex_);
        pulls_.erase(node);
    }
    template <typename Fn>
    void each(Fn&& fn) {
        std::lock_guard lock(mutex_);
        for (const auto& [node, pull] : pulls_) fn(node, pull.first, util::milliseconds_since(pull.second));
    }

  private:
    std::mutex mutex_;
    std::map<std::string, std::pair<ImageRef, util::SteadyClock::time_point>> pulls_;
};

class NodeWorker {
  public:
    NodeWorker(exec::Executor& executor, const NodeImages& plan, const PullOptions& options,
               InFlight& in_flight, const std::function<void(const ImageOutcome&, std::size_t)>& settled)
        : executor_(executor), plan_(plan), options_(options), in_flight_(in_flight), settled_(settled) {}

    NodeOutcome run() {
        const auto began = util::SteadyClock::now();
        outcome_.node = plan_.node.name;
        for (std::size_t i = 0; i < plan_.images.size(); ++i) {
            if (outcome_.unreachable) {
                settle(i, ImageOutcome::Status::Failed, "not attempted: the node is unreachable");
            } else if (options_.interrupted()) {
                settle(i, ImageOutcome::Status::Skipped, "interrupted");
            } else {
                pull(i);
            }
        }
        outcome_.elapsed = util::milliseconds_since(began);
        return outcome_;
    }

  private:
    void settle(std::size_t index, ImageOutcome::Status status, std::string error = {}) {
        ImageOutcome image;
        image.image = plan_.images[index];
        image.status = status;
        image.error = std::move(error);
        settle(std::move(image));
    }
    void settle(ImageOutcome image) {
        outcome_.images.push_back(std::move(image));
        settled_(outcome_.images.back(), outcome_.images.size());
    }

    // The ID the node has now, nullopt when the node cannot be reached ("" when the image is absent).
    std::optional<std::string> current_id(const ImageRef& ref, exec::CommandResult* result = nullptr) {
        auto inspected = executor_.run(plan_.node, image_id_command(ref));
        if (result) *result = inspected;
        if (!inspected.transport_error.empty()) return std::nullopt;
        return inspected.ok() ? parse_image_id(inspected.out) : std::string();
    }

    void pull(std::size_t index) {
        const auto& ref = plan_.images[index];
        ImageOutcome image;
        image.image = ref;
        const auto began = util::SteadyClock::now();
        exec::CommandResult probe;
        const auto before = current_id(ref, &probe);
        if (!before) {
            outcome_.unreachable = true;
            image.status = ImageOutcome::Status::Failed;
            image.error = probe.transport_error;
            settle(std::move(image));
            return;
        }
        in_flight_.begin(plan_.node.name, ref);
        const auto pulled = executor_.run(plan_.node, pull_command(ref, options_.timeout));
        in_flight_.end(plan_.node.name);
        if (!pulled.ok()) {
            outcome_.unreachable = !pulled.transport_error.empty();
            image.status = ImageOutcome::Status::Failed;
            image.error = describe_failure(pulled, options_.timeout);
            image.elapsed = util::milliseconds_since(began);
            settle(std::move(image));
            return;
        }
        exec::CommandResult inspected;
        const auto after = current_id(ref, &inspected);
        image.elapsed = util::milliseconds_since(began);
        if (!after || after->empty()) {
            outcome_.unreachable = !after.has_value();
            image.status = ImageOutcome::Status::Failed;
            image.error = "pulled, but `" + ref.cli +
                          " image inspect` gives no ID: " + describe_failure(inspected, Duration{60000});
            settle(std::move(image));
            return;
        }
        image.id = *after;
        image.status = *before == *after ? ImageOutcome::Status::Present : ImageOutcome::Status::Pulled;
        settle(std::move(image));
    }

    exec::Executor& executor_;
    const NodeImages& plan_;
    const PullOptions& options_;
    InFlight& in_flight_;
    const std::function<void(const ImageOutcome&, std::size_t)>& settled_;
    NodeOutcome outcome_;
};

// Every image of the plan, each compared across the nodes that pulled it.
std::vector<IdMismatch> compare_ids(const std::vector<NodeOutcome>& nodes) {
    std::vector<ImageRef> images;
    std::vector<std::vector<NodeId>> ids;
    for (const auto& node : nodes) {
        for (const auto& image : node.images) {
            auto at = std::find(images.begin(), images.end(), image.image);
            if (at == images.end()) {
                images.push_back(image.image);
                ids.emplace_back();
                at = images.end() - 1;
            }
            ids[static_cast<std::size_t>(at - images.begin())].push_back({node.node, image.id});
        }
    }
    std::vector<IdMismatch> found;
    for (std::size_t i = 0; i < images.size(); ++i) {
        auto differ = mismatches(images[i], ids[i]);
        found.insert(found.end(), differ.begin(), differ.end());
    }
    return found;
}

}  // namespace

std::size_t NodeOutcome::ok_count() const {
    return static_cast<std::size_t>(
        std::count_if(images.begin(), images.end(), [](const ImageOutcome& i) { return i.ok(); }));
}

bool PullResult::all_pulled() const {
    return mismatches.empty() && std::all_of(nodes.begin(), nodes.end(), [](const NodeOutcome& node) {
               return node.ok_count() == node.images.size();
           });
}

bool PullResult::any_unreachable() const {
    return std::any_of(nodes.begin(), nodes.end(), [](const NodeOutcome& node) { return node.unreachable; });
}

bool PullResult::any_failed() const {
    return !mismatches.empty() || std::any_of(nodes.begin(), nodes.end(), [](const NodeOutcome& node) {
        return !node.unreachable && node.ok_count() < node.images.size();
    });
}

PullResult run_pull(exec::Executor& executor, const std::vector<NodeImages>& plan, PullObserver& observer,
                    const PullOptions& options) {
    const auto began = util::SteadyClock::now();
    PullResult result;
    result.nodes.resize(plan.size());
    std::mutex observer_mutex;
    InFlight in_flight;

    // The ticker: a "still pulling" line per running pull every progress_every, until the workers end.
    std::mutex ticker_mutex;
    std::condition_variable ticker_wake;
    bool finished = false;
    std::thread ticker([&] {
        if (options.progress_every.count() <= 0) return;
        std::unique_lock lock(ticker_mutex);
        while (!ticker_wake.wait_for(lock, options.progress_every, [&] { return finished; })) {
            in_flight.each([&](const std::string& node, const ImageRef& image, Duration elapsed) {
                std::lock_guard observer_lock(observer_mutex);
                observer.still_pulling(node, image, elapsed);
            });
        }
    });

    util::for_each_parallel(plan.size(), options.max_parallel_nodes, [&](std::size_t i) {
        const std::function<void(const ImageOutcome&, std::size_t)> settled = [&](const ImageOutcome& image,
                                                                                  std::size_t done) {
            std::lock_guard lock(observer_mutex);
            observer.image_done(plan[i].node.name, image, done, plan[i].images.size());
        };
        NodeWorker worker(executor, plan[i], options, in_flight, settled);
        result.nodes[i] = worker.run();
        std::lock_guard lock(observer_mutex);
        observer.node_done(result.nodes[i]);
    });
    {
        std::lock_guard lock(ticker_mutex);
        finished = true;
    }
    ticker_wake.notify_all();
    ticker.join();

    result.mismatches = compare_ids(result.nodes);
    result.elapsed = util::milliseconds_since(began);
    return result;
}

std::string to_string(ImageOutcome::Status status) {
    switch (status) {
        case ImageOutcome::Status::Pulled:
            return "pulled";
        case ImageOutcome::Status::Present:
            return "present";
        case ImageOutcome::Status::Failed:
            return "failed";
        case ImageOutcome::Status::Skipped:
            return "skipped";
    }
    return "failed";
}

}  // namespace pdctl::pull

#include "sim/router_workers.hpp"

#include <fmt/format.h>

#include <thread>

#include "sim/args.hpp"
#include "sim/log.hpp"

namespace pdsim {
namespace {

std::unique_ptr<Worker> make_worker(Worker::Role role, const std::string& url,
                                    std::optional<int> bootstrap_port) {
    auto address = parse_url(url);
    if (!address) {
        throw UsageError(fmt::format("invalid worker URL '{}': expected http://HOST:PORT", url));
    }
    auto worker = std::make_unique<Worker>();
    worker->role = role;
    worker->url = url;
    while (!worker->url.empty() && worker->url.back() == '/') {
        worker->url.pop_back();
    }
    worker->address = *address;
    worker->bootstrap_port = bootstrap_port;
    return worker;
}

}  // namespace

const char* Worker::state_name() const {
    switch (state.load()) {
        case State::kPending:
            return "pending";
        case State::kReady:
            return "ready";
        case State::kNotReady:
            return "not_ready";
        case State::kFailed:
            return "failed";
    }
    return "pending";
}

WorkerPool::WorkerPool(const RouterArgs& args, const std::string& unregistered) {
    for (const PrefillWorker& prefill : args.prefill) {
        prefill_.push_back(make_worker(Worker::Role::kPrefill, prefill.url, prefill.bootstrap_port));
    }
    for (const std::string& decode : args.decode) {
        decode_.push_back(make_worker(Worker::Role::kDecode, decode, std::nullopt));
    }
    for (const auto* list : {&prefill_, &decode_}) {
        for (const auto& worker : *list) {
            if (!unregistered.empty() && worker->url == unregistered) worker->registered = false;
        }
    }
}

void WorkerPool::start_health_checks(Millis interval, std::string endpoint, Millis startup_timeout) {
    interval = std::max(interval, Millis{10});
    const auto startup_deadline = Clock::now() + startup_timeout;
    std::thread([this, interval, endpoint = std::move(endpoint), startup_deadline] {
        for (;;) {
            check_all(endpoint, startup_deadline);
            sleep_ms(interval);
        }
    }).detach();
}

void WorkerPool::check_all(const std::string& endpoint, Clock::time_point startup_deadline) {
    for (const auto* list : {&prefill_, &decode_}) {
        for (const auto& worker : *list) {
            if (!worker->registered || worker->state == Worker::State::kFailed) continue;
            auto client = make_client(worker->address.host, worker->address.port, Millis{1000}, Millis{5000});
            auto result = client->Get(endpoint);
            const bool healthy = result && result->status >= 200 && result->status < 300;
            if (healthy) {
                worker->state = Worker::State::kReady;
            } else if (worker->state == Worker::State::kPending && Clock::now() >= startup_deadline) {
                worker->state = Worker::State::kFailed;
                log_mainf("Worker {} ({}) failed to become healthy within the startup timeout", worker->url,
                          worker->role_name());
            } else if (worker->state == Worker::State::kReady) {
                worker->state = Worker::State::kNotReady;
            }
            if (worker->healthy.exchange(healthy) != healthy) {
                if (healthy) {
                    log_mainf("Worker {} ({}) is healthy", worker->url, worker->role_name());
                } else {
                    log_mainf("Worker {} ({}) failed its health check: {}", worker->url, worker->role_name(),
                              describe_failure(result, worker->address.host, worker->address.port));
                }
            }
        }
    }
    const int total = registered_count();
    const int healthy = healthy_count(Worker::Role::kPrefill) + healthy_count(Worker::Role::kDecode);
    if (!all_healthy_logged_ && total > 0 && healthy == total) {
        all_healthy_logged_ = true;
        log_mainf("All {} workers are healthy", total);
    }
}

int WorkerPool::registered_count() const {
    int count = 0;
    for (const auto* list : {&prefill_, &decode_})
        for (const auto& worker : *list) count += worker->registered ? 1 : 0;
    return count;
}

int WorkerPool::healthy_count(Worker::Role role) const {
    const auto& list = role == Worker::Role::kPrefill ? prefill_ : decode_;
    int count = 0;
    for (const auto& worker : list) {
        count += worker->healthy ? 1 : 0;
    }
    return count;
}

Worker* WorkerPool::pick(const std::vector<std::unique_ptr<Worker>>& workers, bool healthy_only) {
    std::vector<Worker*> candidates;
    for (const auto& worker : workers) {
        if (worker->registered && (!healthy_only || worker->healthy)) {
            candidates.push_back(worker.get());
        }
    }
    if (candidates.empty()) {
        return nullptr;
    }
    std::lock_guard lock(rng_mutex_);
    return candidates[std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(rng_)];
}

std::uint64_t WorkerPool::random_room() {
    std::lock_guard lock(rng_mutex_);
    return rng_() >> 1;
}

}  // namespace pdsim

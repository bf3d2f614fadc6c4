#include "sim/router_workers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "sim/args.hpp"
#include "sim/log.hpp"

namespace pdsim {
namespace {

std::shared_ptr<Worker> make_worker(Worker::Role role, const std::string& url,
                                    std::optional<int> bootstrap_port) {
    auto address = parse_url(url);
    if (!address) {
        throw UsageError(fmt::format("invalid worker URL '{}': expected http://HOST:PORT", url));
    }
    auto worker = std::make_shared<Worker>();
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
        case State::kDraining:
            return "draining";
    }
    return "pending";
}

WorkerPool::WorkerPool(const RouterArgs& args, const std::string& unregistered, Millis drain_settle)
    : drain_settle_(drain_settle) {
    for (const PrefillWorker& prefill : args.prefill) {
        prefill_.push_back(make_worker(Worker::Role::kPrefill, prefill.url, prefill.bootstrap_port));
    }
    for (const std::string& decode : args.decode) {
        decode_.push_back(make_worker(Worker::Role::kDecode, decode, std::nullopt));
    }
    for (const auto* list : {&prefill_, &decode_}) {
        for (const auto& worker : *list) {
            worker->id = new_id();
            if (!unregistered.empty() && worker->url == unregistered) worker->registered = false;
        }
    }
}

std::string WorkerPool::new_id() {
    std::lock_guard lock(rng_mutex_);
    const auto a = rng_();
    const auto b = rng_();
    // A version-4 UUID, as SMG gives its workers.
    return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xfff,
                       0x8000 | ((b >> 48) & 0x3fff), b & 0xffffffffffffULL);
}

void WorkerPool::start_health_checks(Millis interval, std::string endpoint, Millis startup_timeout) {
    interval = std::max(interval, Millis{10});
    {
        std::lock_guard lock(mutex_);
        startup_timeout_ = startup_timeout;
        const auto deadline = Clock::now() + startup_timeout;
        for (const auto* list : {&prefill_, &decode_})
            for (const auto& worker : *list) worker->startup_deadline = deadline;
    }
    std::thread([this, interval, endpoint = std::move(endpoint)] {
        for (;;) {
            check_all(endpoint);
            sleep_ms(interval);
        }
    }).detach();
}

void WorkerPool::check_all(const std::string& endpoint) {
    for (const auto& worker : all()) {
        if (!worker->registered || worker->state == Worker::State::kFailed) continue;
        auto client = make_client(worker->address.host, worker->address.port, Millis{1000}, Millis{5000});
        auto result = client->Get(endpoint);
        const bool healthy = result && result->status >= 200 && result->status < 300;
        // From the state read, and only if it is still that: a DELETE that turned the worker draining
        // meanwhile must not be undone (draining is left only by removal).
        auto state = worker->state.load();
        auto next = state;
        if (state != Worker::State::kDraining) {
            if (healthy) {
                next = Worker::State::kReady;
            } else if (state == Worker::State::kPending && Clock::now() >= worker->startup_deadline) {
                next = Worker::State::kFailed;
            } else if (state == Worker::State::kReady) {
                next = Worker::State::kNotReady;
            }
        }
        if (next != state && worker->state.compare_exchange_strong(state, next) &&
            next == Worker::State::kFailed)
            log_mainf("Worker {} ({}) failed to become healthy within the startup timeout", worker->url,
                      worker->role_name());
        if (worker->healthy.exchange(healthy) != healthy) {
            if (healthy) {
                log_mainf("Worker {} ({}) is healthy", worker->url, worker->role_name());
            } else {
                log_mainf("Worker {} ({}) failed its health check: {}", worker->url, worker->role_name(),
                          describe_failure(result, worker->address.host, worker->address.port));
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

WorkerList WorkerPool::list(Worker::Role role) const {
    std::lock_guard lock(mutex_);
    return role == Worker::Role::kPrefill ? prefill_ : decode_;
}

WorkerList WorkerPool::all() const {
    std::lock_guard lock(mutex_);
    WorkerList workers = prefill_;
    workers.insert(workers.end(), decode_.begin(), decode_.end());
    return workers;
}

int WorkerPool::registered_count() const {
    int count = 0;
    for (const auto& worker : all()) count += worker->registered ? 1 : 0;
    return count;
}

int WorkerPool::healthy_count(Worker::Role role) const {
    int count = 0;
    for (const auto& worker : list(role)) count += worker->serving() && worker->healthy ? 1 : 0;
    return count;
}

std::shared_ptr<Worker> WorkerPool::add(Worker::Role role, const std::string& url,
                                        std::optional<int> bootstrap_port) {
    auto worker = make_worker(role, url, bootstrap_port);
    worker->id = new_id();
    std::lock_guard lock(mutex_);
    for (const auto* list : {&prefill_, &decode_})
        for (const auto& known : *list)
            if (known->registered && known->url == worker->url) return nullptr;
    if (startup_timeout_) worker->startup_deadline = Clock::now() + *startup_timeout_;
    (role == Worker::Role::kPrefill ? prefill_ : decode_).push_back(worker);
    return worker;
}

std::shared_ptr<Worker> WorkerPool::find(const std::string& id_or_url) const {
    for (const auto& worker : all())
        if (worker->registered && (worker->id == id_or_url || worker->url == id_or_url)) return worker;
    return nullptr;
}

std::shared_ptr<Worker> WorkerPool::remove(const std::string& id_or_url) {
    auto worker = find(id_or_url);
    if (!worker || worker->state.exchange(Worker::State::kDraining) == Worker::State::kDraining)
        return worker;
    log_mainf("Worker {} ({}) is draining; removed in {} ms", worker->url, worker->role_name(),
              drain_settle_.count());
    std::thread([this, worker] {
        sleep_ms(drain_settle_);
        {
            std::lock_guard lock(mutex_);
            auto& list = worker->role == Worker::Role::kPrefill ? prefill_ : decode_;
            list.erase(std::remove(list.begin(), list.end(), worker), list.end());
        }
        log_mainf("Worker {} ({}) removed", worker->url, worker->role_name());
    }).detach();
    return worker;
}

std::shared_ptr<Worker> WorkerPool::pick(const WorkerList& workers, bool healthy_only) {
    std::vector<std::shared_ptr<Worker>> candidates;
    for (const auto& worker : workers) {
        if (worker->serving() && (!healthy_only || worker->healthy)) {
            candidates.push_back(worker);
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

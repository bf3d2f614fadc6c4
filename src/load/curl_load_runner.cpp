// run_load over libcurl's multi interface: every stream on one thread. The thread waits in epoll and
// hands libcurl only the sockets that have something (curl_multi_socket_action, libcurl's
// "hiper" way): curl_multi_perform would visit all of them at every wake-up, and with 256 streams a
// decode step's burst of tokens would cost 256 × 256 socket checks, milliseconds of added ITL.
#include <curl/curl.h>
#include <fmt/format.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "pdctl/load/arrivals.hpp"
#include "pdctl/load/connection_pool.hpp"
#include "pdctl/load/load_runner.hpp"
#include "pdctl/load/request_body.hpp"
#include "pdctl/load/request_queue.hpp"
#include "pdctl/load/row_stats.hpp"
#include "pdctl/load/stream_tally.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::load {
namespace {

constexpr auto kProgressEvery = std::chrono::milliseconds(250);
constexpr long kConnectTimeoutMs = 5000;

// Every stream holds a socket, and a shell's default soft limit of 1024 open files would cap a level at
// about a thousand streams with "Too many open files". The hard limit is what the administrator allows:
// the soft one is raised to it once, at the first load of the process. Returns the soft limit in force.
long open_file_limit() {
    static const long limit = [] {
        rlimit limits{};
        if (getrlimit(RLIMIT_NOFILE, &limits) != 0) return -1L;
        if (limits.rlim_cur < limits.rlim_max) {
            rlimit raised = limits;
            raised.rlim_cur = limits.rlim_max;
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limits = raised;
        }
        return limits.rlim_cur == RLIM_INFINITY ? -1L : static_cast<long>(limits.rlim_cur);
    }();
    return limit;
}

// A transfer that failed for want of a file descriptor names the limit: the fix is the limit, not the
// server. `socket_errno`: socket()'s (EMFILE: this process's limit, ENFILE: the system's).
std::string with_fd_limit(std::string error, int os_errno) {
    rlimit limits{};
    if (os_errno == EMFILE && getrlimit(RLIMIT_NOFILE, &limits) == 0)
        return fmt::format(
            "{} (could not open a socket: the open-file limit of {} is reached; raise the hard "
            "limit, ulimit -Hn, or send fewer streams at once)",
            error, static_cast<long long>(limits.rlim_cur));
    if (os_errno == ENFILE)
        return fmt::format("{} (could not open a socket: the system's open-file table is full, fs.file-max)",
                           error);
    return error;
}

// One request in flight.
struct Transfer {
    Transfer(util::SteadyClock::time_point sent, int input_tokens, int output_tokens, bool stream)
        : tally(sent, input_tokens, output_tokens, stream) {}
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string body;
    StreamTally tally;
    bool measured = false;
    std::size_t slot = 0;  // its place in LoadResult::records
    double sent_s = 0;
    const util::SteadyClock::time_point* observed_at =
        nullptr;           // when this round's data was seen (MultiLoad)
    int socket_errno = 0;  // why socket() failed for it, if it did (open_socket)
    char error[CURL_ERROR_SIZE] = {};
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    transfer->tally.on_bytes({data, size * count}, *transfer->observed_at);
    return size * count;
}

// Opens a transfer's socket as libcurl would, but keeps socket()'s errno: libcurl's own message for a
// socket that could not be opened ("Couldn't connect to server") does not say why.
curl_socket_t open_socket(void* user, curlsocktype, curl_sockaddr* address) {
    const curl_socket_t socket =
        ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (socket == CURL_SOCKET_BAD) static_cast<Transfer*>(user)->socket_errno = errno;
    return socket;
}

// The multi handle and its transfers; frees whatever is still in flight when it goes.
class MultiLoad {
  public:
    explicit MultiLoad(const LoadSpec& spec)
        : spec_(spec), multi_(curl_multi_init()), epoll_(epoll_create1(EPOLL_CLOEXEC)) {
        if (multi_ == nullptr || epoll_ < 0) {
            if (multi_ != nullptr) curl_multi_cleanup(multi_);
            if (epoll_ >= 0) ::close(epoll_);
            throw std::runtime_error("libcurl: curl_multi_init or epoll_create1 failed");
        }
        open_file_limit();
        curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
        curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, connection_pool_size(spec, open_file_limit()));
        curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &MultiLoad::on_socket);
        curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
        curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &MultiLoad::on_timer);
        curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    }
    ~MultiLoad() {
        for (auto& [easy, transfer] : transfers_) release(*transfer);
        curl_multi_cleanup(multi_);  // may still tell on_socket to forget sockets: epoll_ is open
        ::close(epoll_);
    }
    MultiLoad(const MultiLoad&) = delete;
    MultiLoad& operator=(const MultiLoad&) = delete;

    int in_flight() const { return static_cast<int>(transfers_.size()); }

    // Sends `planned`. `slot` is handed back when it finishes: its index among the measured ones, or
    // for a warm-up its request index.
    void start(PlannedRequest planned, bool measured, std::size_t slot, util::SteadyClock::time_point began) {
        const auto sent = util::SteadyClock::now();
        auto transfer =
            std::make_unique<Transfer>(sent, planned.input_tokens, planned.output_tokens, spec_.stream);
        transfer->body = std::move(planned.body);
        transfer->measured = measured;
        transfer->slot = slot;
        transfer->observed_at = &observed_at_;
        transfer->sent_s = util::to_seconds(sent - began);
        CURL* easy = curl_easy_init();
        if (easy == nullptr) throw std::runtime_error("libcurl: curl_easy_init failed");
        transfer->easy = easy;
        transfer->headers = curl_slist_append(nullptr, "Content-Type: application/json");
        if (spec_.stream)
            transfer->headers = curl_slist_append(transfer->headers, "Accept: text/event-stream");
        // No "Expect: 100-continue" for bodies over 1 KiB: it would add a round trip to every TTFT.
        transfer->headers = curl_slist_append(transfer->headers, "Expect:");
        curl_easy_setopt(easy, CURLOPT_URL, spec_.url.c_str());
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, transfer->headers);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, transfer->body.c_str());
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(transfer->body.size()));
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer.get());
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
        // The router is the cluster's own address: never through a proxy from the environment.
        curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
        curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
        curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, transfer.get());
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(spec_.timeout.count()));
        if (curl_multi_add_handle(multi_, easy) != CURLM_OK) {
            release(*transfer);
            throw std::runtime_error("libcurl: curl_multi_add_handle failed");
        }
        transfers_.emplace(easy, std::move(transfer));
    }

    // Runs the transfers until one finishes or `until`; `finished(record, measured, slot)` for each
    // that ended.
    template <typename Finished>
    void pump(util::SteadyClock::time_point until, Finished&& finished) {
        run_timer_if_due();
        if (collect(finished) > 0) return;
        auto wake = until;
        if (timer_) wake = std::min(wake, *timer_);
        const auto wait =
            std::chrono::ceil<std::chrono::milliseconds>(wake - util::SteadyClock::now()).count();
        std::array<epoll_event, 256> events{};
        const int ready = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()),
                                     static_cast<int>(std::clamp<long long>(wait, 0, 1000)));
        // Every socket of this round had its data when epoll returned: tokens are stamped then, not
        // after the ones handled before them (a decode step's 256 tokens arrive together).
        observed_at_ = util::SteadyClock::now();
        int running = 0;
        for (int i = 0; i < ready; ++i) {
            const auto happened = events[static_cast<std::size_t>(i)].events;
            int flags = 0;
            if (happened & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) flags |= CURL_CSELECT_IN;
            if (happened & EPOLLOUT) flags |= CURL_CSELECT_OUT;
            if (happened & EPOLLERR) flags |= CURL_CSELECT_ERR;
            curl_multi_socket_action(multi_, events[static_cast<std::size_t>(i)].data.fd, flags, &running);
        }
        run_timer_if_due();
        collect(finished);
    }

  private:
    // libcurl says which socket to watch for what (CURLMOPT_SOCKETFUNCTION).
    static int on_socket(CURL*, curl_socket_t socket, int what, void* self_pointer, void*) {
        auto* self = static_cast<MultiLoad*>(self_pointer);
        if (what == CURL_POLL_REMOVE) {
            epoll_ctl(self->epoll_, EPOLL_CTL_DEL, socket, nullptr);
            return 0;
        }
        epoll_event event{};
        event.data.fd = socket;
        if (what & CURL_POLL_IN) event.events |= EPOLLIN;
        if (what & CURL_POLL_OUT) event.events |= EPOLLOUT;
        if (epoll_ctl(self->epoll_, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT)
            epoll_ctl(self->epoll_, EPOLL_CTL_ADD, socket, &event);
        return 0;
    }
    // libcurl says when it next wants to run without a socket event (CURLMOPT_TIMERFUNCTION): -1 never.
    static int on_timer(CURLM*, long timeout_ms, void* self_pointer) {
        auto* self = static_cast<MultiLoad*>(self_pointer);
        if (timeout_ms < 0)
            self->timer_.reset();
        else
            self->timer_ = util::SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
        return 0;
    }

    void run_timer_if_due() {
        if (!timer_ || util::SteadyClock::now() < *timer_) return;
        timer_.reset();
        observed_at_ = util::SteadyClock::now();
        int running = 0;
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    }

    template <typename Finished>
    int collect(Finished&& finished) {
        int ended = 0;
        int queued = 0;
        while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
            if (message->msg != CURLMSG_DONE) continue;
            const auto now = util::SteadyClock::now();
            auto it = transfers_.find(message->easy_handle);
            if (it == transfers_.end()) continue;
            Transfer& transfer = *it->second;
            long status = 0;
            curl_easy_getinfo(transfer.easy, CURLINFO_RESPONSE_CODE, &status);
            std::string error;
            if (message->data.result != CURLE_OK) {
                error = transfer.error[0] != '\0' ? transfer.error : curl_easy_strerror(message->data.result);
                error = with_fd_limit(std::move(error), transfer.socket_errno);
            }
            RequestRecord record = transfer.tally.finish(static_cast<int>(status), error, now);
            record.sent_s = transfer.sent_s;
            finished(std::move(record), transfer.measured, transfer.slot);
            release(transfer);
            transfers_.erase(it);
            ++ended;
        }
        return ended;
    }

    void release(Transfer& transfer) {
        curl_multi_remove_handle(multi_, transfer.easy);
        curl_easy_cleanup(transfer.easy);
        curl_slist_free_all(transfer.headers);
    }

    const LoadSpec& spec_;
    CURLM* multi_;
    int epoll_;
    std::optional<util::SteadyClock::time_point> timer_;  // when libcurl wants to run for its timeouts
    util::SteadyClock::time_point observed_at_ = util::SteadyClock::now();
    std::unordered_map<CURL*, std::unique_ptr<Transfer>> transfers_;
};

void init_curl_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// What request n of the level is: the spec's workload, or the row's unique prompt.
std::function<PlannedRequest(std::uint64_t)> plan_of(const LoadSpec& spec) {
    if (spec.request) return spec.request;
    return [&spec](std::uint64_t n) {
        PlannedRequest planned;
        planned.body =
            generate_request_body(spec.input_tokens, spec.output_tokens, spec.seed, n, spec.stream);
        planned.input_tokens = spec.input_tokens;
        planned.output_tokens = spec.output_tokens;
        return planned;
    };
}

}  // namespace

LoadResult run_load(const LoadSpec& spec, const std::function<void(const LoadProgress&)>& progress) {
    init_curl_once();
    LoadResult result;
    MultiLoad load(spec);
    const auto cancelled = [&] { return spec.cancelled && spec.cancelled(); };
    // Requests 0 .. warmup-1 are the warm-ups, the measured ones follow; a request waiting for another
    // (PlannedRequest::after) goes once that one ended, the next ready one in index order before it.
    RequestQueue queue(plan_of(spec));
    const auto warmups = static_cast<std::uint64_t>(std::max(spec.warmup, 0));

    // Warm-up: sent and waited for before anything is measured, never counted.
    const int warm_parallel =
        std::max(1, std::min(spec.concurrency > 0 ? spec.concurrency : spec.warmup, spec.warmup));
    int warm_done = 0;
    const auto warm_began = util::SteadyClock::now();
    while (warm_done < spec.warmup && !cancelled()) {
        while (load.in_flight() < warm_parallel) {
            auto next = queue.next(warmups);
            if (!next) break;
            load.start(std::move(next->planned), false, static_cast<std::size_t>(next->n), warm_began);
        }
        load.pump(util::SteadyClock::now() + kProgressEvery, [&](RequestRecord&&, bool, std::size_t n) {
            ++warm_done;
            queue.finished(n);
        });
    }

    const auto began = util::SteadyClock::now();
    const auto stop_at =
        spec.duration.count() > 0 ? began + spec.duration : util::SteadyClock::time_point::max();
    const bool poisson = spec.rate.has_value();
    PoissonArrivals arrivals(poisson ? *spec.rate : 0, spec.seed, spec.burstiness);
    // The measured requests are warmups .. end-1; with --duration, as many as its time allows.
    const std::uint64_t end = spec.requests > 0 ? warmups + static_cast<std::uint64_t>(spec.requests)
                                                : std::numeric_limits<std::uint64_t>::max();
    std::uint64_t arrived = warmups;  // Poisson: the requests whose arrival time has come
    auto next_arrival = began;
    auto next_progress = began + kProgressEvery;
    auto last_finished = began;
    LoadProgress state;
    std::vector<double> ok_e2e;
    std::vector<bool> filled;             // which records a finished request filled in
    std::vector<std::uint64_t> index_of;  // each record's request index
    const auto more_to_send = [&](util::SteadyClock::time_point now) {
        if (cancelled()) return false;
        if (spec.requests > 0) return static_cast<int>(result.records.size()) < spec.requests;
        return now < stop_at;
    };
    const auto more_to_arrive = [&](util::SteadyClock::time_point now) {
        return more_to_send(now) && arrived < end;
    };
    // Sends ready requests below `limit` while a slot is free.
    const auto send_ready = [&](std::uint64_t limit, int most_in_flight) {
        while (most_in_flight <= 0 || load.in_flight() < most_in_flight) {
            auto next = queue.next(limit);
            if (!next) return;
            result.records.emplace_back();
            result.records.back().tag = next->planned.tag;
            filled.push_back(false);
            index_of.push_back(next->n);
            load.start(std::move(next->planned), true, result.records.size() - 1, began);
        }
    };
    for (;;) {
        auto now = util::SteadyClock::now();
        if (!poisson) {
            if (more_to_send(now)) send_ready(end, std::max(1, spec.concurrency));
        } else {
            for (; more_to_arrive(now) && now >= next_arrival; ++arrived)
                next_arrival += std::chrono::duration_cast<util::SteadyClock::duration>(
                    std::chrono::duration<double>(arrivals.next_gap_s()));
            if (more_to_send(now)) send_ready(arrived, spec.concurrency);
        }
        if (cancelled() || (!more_to_send(now) && load.in_flight() == 0)) break;
        auto wake = std::min(now + kProgressEvery, stop_at);
        if (poisson && more_to_arrive(now)) wake = std::min(wake, std::max(next_arrival, now));
        load.pump(wake, [&](RequestRecord&& record, bool measured, std::size_t slot) {
            if (!measured) return;
            queue.finished(index_of[slot]);
            last_finished = util::SteadyClock::now();
            ++state.done;
            if (record.ok()) {
                ++state.ok;
                ok_e2e.push_back(record.e2e_s);
            } else {
                ++state.failed;
            }
            record.tag = std::move(result.records[slot].tag);
            result.records[slot] = std::move(record);
            filled[slot] = true;
        });
        now = util::SteadyClock::now();
        if (progress && now >= next_progress) {
            state.in_flight = load.in_flight();
            state.elapsed_s = util::to_seconds(now - began);
            state.p50_e2e_s = percentile(ok_e2e, 50);
            progress(state);
            next_progress = now + kProgressEvery;
        }
    }
    result.cancelled = cancelled();
    if (result.cancelled) {
        // Requests still in flight are abandoned (MultiLoad closes them): only finished ones count.
        std::vector<RequestRecord> finished;
        for (std::size_t i = 0; i < result.records.size(); ++i)
            if (filled[i]) finished.push_back(std::move(result.records[i]));
        result.records = std::move(finished);
    }
    result.duration_s = util::to_seconds(last_finished - began);
    return result;
}

}  // namespace pdctl::load

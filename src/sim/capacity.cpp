#include "sim/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "sim/log.hpp"

namespace pdsim {
namespace {

using FloatMillis = std::chrono::duration<double, std::milli>;

constexpr double kMegabyte = 1e6;
constexpr double kGigabyte = 1e9;
constexpr int kUnboundedRunning = 1 << 20;

double env_double(const char* name, double fallback) {
    const char* raw = std::getenv(name);
    if (raw == nullptr || *raw == '\0') return fallback;
    char* end = nullptr;
    const double value = std::strtod(raw, &end);
    if (*end != '\0' || !(value >= 0)) {
        std::fprintf(stderr, "pdsim: %s=%s: expected a non-negative number\n", name, raw);
        exit_now(2);
    }
    return value;
}

}  // namespace

CapacityKnobs load_capacity_knobs() {
    CapacityKnobs knobs;
    knobs.prefill_tokens_per_s_per_gpu = env_double("PDSIM_PREFILL_TOKENS_PER_S", 0);
    knobs.token_ms = env_double("PDSIM_TOKEN_MS", 0);
    knobs.batch_slowdown = env_double("PDSIM_BATCH_SLOWDOWN", 0);
    knobs.kv_bytes_per_token = env_double("PDSIM_KV_BYTES_PER_TOKEN", knobs.kv_bytes_per_token);
    knobs.kv_gb_per_s = env_double("PDSIM_KV_GBPS", 0);
    knobs.kv_fail_above_mb = env_double("PDSIM_KV_FAIL_ABOVE_MB", 0);
    knobs.slowdown = env_double("PDSIM_SLOWDOWN", 0);
    knobs.prefix_cache_tokens = env_double("PDSIM_PREFIX_CACHE_TOKENS", knobs.prefix_cache_tokens);
    return knobs;
}

Capacity::Capacity(const CapacityKnobs& knobs, int tp_size, int max_running_requests)
    : knobs_(knobs),
      prefill_rate_(knobs.prefill_tokens_per_s_per_gpu * std::max(1, tp_size) / (1 + knobs.slowdown)),
      max_running_(max_running_requests > 0 ? max_running_requests : kUnboundedRunning) {}

void Capacity::prefill(int input_tokens) {
    if (prefill_rate_ <= 0) return;
    const auto compute = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0, input_tokens) / prefill_rate_));
    Clock::time_point done;
    {
        // First come, first served: each request starts when the one before it is done.
        std::lock_guard lock(prefill_mutex_);
        const auto start = std::max(Clock::now(), prefill_free_at_);
        prefill_free_at_ = start + compute;
        done = prefill_free_at_;
    }
    std::this_thread::sleep_until(done);
}

KvTransfer Capacity::kv_transfer(int input_tokens) const {
    KvTransfer transfer;
    transfer.bytes = std::max(0, input_tokens) * knobs_.kv_bytes_per_token;
    if (knobs_.kv_gb_per_s > 0)
        transfer.time =
            FloatMillis(transfer.bytes / (knobs_.kv_gb_per_s * kGigabyte) * 1e3 * (1 + knobs_.slowdown));
    const double limit = knobs_.kv_fail_above_mb * kMegabyte;
    if (limit > 0 && transfer.bytes > limit) {
        // The original experiment's NIXL/UCX failure: the whole KV in one transfer, refused above ~20 MB.
        transfer.failure =
            fmt::format("NIXL_ERR_REMOTE_DISCONNECT: transfer of {:.1f} MB failed (limit {:.1f} MB)",
                        transfer.bytes / kMegabyte, knobs_.kv_fail_above_mb);
        transfer.time *= limit / transfer.bytes;  // it breaks part-way
    }
    return transfer;
}

Capacity::DecodeSeat::DecodeSeat(Capacity& capacity) : capacity_(capacity) {
    std::unique_lock lock(capacity_.seats_mutex_);
    ++capacity_.queued_;
    capacity_.seat_freed_.wait(lock, [this] { return capacity_.decoding_ < capacity_.max_running_; });
    --capacity_.queued_;
    ++capacity_.decoding_;
    step_at_ = Clock::now();
}

Capacity::DecodeSeat::~DecodeSeat() {
    {
        std::lock_guard lock(capacity_.seats_mutex_);
        --capacity_.decoding_;
    }
    capacity_.seat_freed_.notify_one();
}

void Capacity::DecodeSeat::next_token() {
    const CapacityKnobs& knobs = capacity_.knobs_;
    if (knobs.token_ms <= 0) return;
    const int batch = capacity_.decoding();
    const auto step = std::chrono::duration_cast<Clock::duration>(FloatMillis(
        knobs.token_ms * (1.0 + knobs.batch_slowdown * std::max(0, batch - 1)) * (1 + knobs.slowdown)));
    const auto now = Clock::now();
    // A step that fell behind (a stalled client, a loaded machine) is due at once, and the cadence
    // restarts from there rather than bursting tokens to catch up.
    step_at_ = std::max(step_at_ + step, now);
    std::this_thread::sleep_until(step_at_);
}

int Capacity::decoding() const {
    std::lock_guard lock(seats_mutex_);
    return decoding_;
}

int Capacity::queued() const {
    std::lock_guard lock(seats_mutex_);
    return queued_;
}

}  // namespace pdsim

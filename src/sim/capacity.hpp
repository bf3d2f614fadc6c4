#pragma once
// pdsim's capacity model: how long a simulated SGLang server takes to serve a request, so that a
// load test through the router measures numbers a test can predict (docs/pdsim.md, "Capacity"):
// - prefill is compute-bound: one forward at a time, first come first served, at
//   PDSIM_PREFILL_TOKENS_PER_S per GPU × --tp-size input tokens a second;
// - the KV moves at PDSIM_KV_GBPS, PDSIM_KV_BYTES_PER_TOKEN per input token, and a transfer larger
//   than PDSIM_KV_FAIL_ABOVE_MB fails (the NIXL backend of the original experiment, docs/bench.md);
// - decode is memory-bound: each output token after the first takes PDSIM_TOKEN_MS, plus
//   PDSIM_BATCH_SLOWDOWN of it for every other request decoding at the same time; at most
//   --max-running-requests decode at once, the rest wait in a queue.
// Every knob at 0 (the default) keeps the old behaviour: answers as fast as the machine allows.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "sim/process.hpp"

namespace pdsim {

struct CapacityKnobs {
    double prefill_tokens_per_s_per_gpu = 0;  // PDSIM_PREFILL_TOKENS_PER_S; 0 = instant
    double token_ms = 0;                      // PDSIM_TOKEN_MS
    double batch_slowdown = 0;                // PDSIM_BATCH_SLOWDOWN
    double kv_bytes_per_token = 70272;        // PDSIM_KV_BYTES_PER_TOKEN: DeepSeek-V3 MLA, bf16, 61 layers
    double kv_gb_per_s = 0;                   // PDSIM_KV_GBPS; 0 = instant
    double kv_fail_above_mb = 0;              // PDSIM_KV_FAIL_ABOVE_MB; 0 = never
    // PDSIM_SLOWDOWN: every time above takes this fraction longer (0.2: 20 % slower), as after a bad
    // upgrade or a NIC swap, for the regression gate's tests.
    double slowdown = 0;
    // PDSIM_PREFIX_CACHE_TOKENS: the most tokens a server's prefix cache keeps before it evicts the
    // least recently used; SGLang's tree lives in the KV pool, which pdsim's logs size at 1000000.
    double prefix_cache_tokens = 1000000;
};

// A KV transfer's size and time, and why it failed (empty: it did not).
struct KvTransfer {
    double bytes = 0;
    std::chrono::duration<double, std::milli> time{0};
    std::string failure;
};

class Capacity {
  public:
    Capacity(const CapacityKnobs& knobs, int tp_size, int max_running_requests);

    const CapacityKnobs& knobs() const { return knobs_; }

    // Holds the caller until this server's single prefill engine has computed `input_tokens`
    // behind every request that came before it.
    void prefill(int input_tokens);

    // The KV transfer of a request with `input_tokens`: how big, how long, and whether it fails.
    KvTransfer kv_transfer(int input_tokens) const;

    // One request's seat among the requests decoding: waits for a free one (queued meanwhile).
    class DecodeSeat {
      public:
        explicit DecodeSeat(Capacity& capacity);
        ~DecodeSeat();
        DecodeSeat(const DecodeSeat&) = delete;
        DecodeSeat& operator=(const DecodeSeat&) = delete;
        // Waits for the next output token at the current batch size. Steps keep their own cadence
        // (each is due one step after the one before), so the time spent sending a token does not
        // add to the next, as a GPU's decode steps do not wait for the HTTP layer.
        void next_token();

      private:
        Capacity& capacity_;
        Clock::time_point step_at_;
    };

    int decoding() const;  // requests holding a seat
    int queued() const;    // requests waiting for one

  private:
    CapacityKnobs knobs_;
    double prefill_rate_;  // tokens per second of the whole group; 0 = instant
    int max_running_;
    std::mutex prefill_mutex_;
    Clock::time_point prefill_free_at_{};
    mutable std::mutex seats_mutex_;
    std::condition_variable seat_freed_;
    int decoding_ = 0;
    int queued_ = 0;
};

// The knobs from the PDSIM_* variables; a malformed value is a usage error (exit 2).
CapacityKnobs load_capacity_knobs();

}  // namespace pdsim

#pragma once
// The bodies of bench requests for SGLang's native POST /generate, and the token ids of synthetic
// prompts. Pure (but fresh_run_nonce).
//
// Honest prompts. SGLang's radix cache is on by default and matches prompts token by token (page size
// 1): a request whose first k ids some earlier request also began with has those k tokens served from
// memory, so its TTFT and prefill rate look better than the prefill really is. A synthetic prompt is
// therefore unique from its first token: every request of a run has a global index (rows, levels,
// repeats and warm-ups, each its own), and the index decides the leading ids:
//
//   first  = 1000 + (g + a) mod 30000
//   second = 1000 + ((g + a) div 30000 + b) mod 30000
//
// with a, b drawn from the run nonce. So among any 30000 consecutive global indices no two prompts
// share even their first token (no cached token at all), and among 9e8 consecutive ones no two share
// their first two (at most one cached token a request, past 30000 requests in a run). The remaining
// ids are pseudo-random from (nonce, index). A run's nonce is random unless --seed is given; then it
// follows from the seed, so --seed reproduces every prompt (and a rerun with it is served from the
// cache, as it should be when that is what was asked).
//
// Two runs with independent nonces: run B's request shares its first token with one of run A's N_A
// prompts with probability N_A / 30000 (the offset a is uniform), and its second token as well with
// probability about 1 / 30000 more. So of B's N_B requests about N_A * N_B / 30000 get one cached
// token each, on average: the runs' first tokens are two arcs of a circle of 30000, which overlap
// in about (N_A + N_B) / 30000 of run pairs and then share up to min(N_A, N_B) first tokens. The
// default validation table sends 36 requests a run: 0.04 cached tokens expected after another such
// run (36 at most, one a request, in about one pair of runs in 400); 1000 requests after 1000: 33
// tokens among more than a million. A two-token hit is 30000 times rarer still: nothing a TTFT shows.
//
// Ids stay in 1000..30999: inside any vocabulary (the smallest in use have 32000 entries), past the
// special tokens at its start (BOS, EOS, padding, the reserved ids).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::load {

constexpr int kFirstPromptId = 1000;
constexpr int kPromptIdRange = 30000;
// Prompts of this many consecutive global indices share no first token.
constexpr std::uint64_t kDistinctFirstTokens = kPromptIdRange;
// Prompts of this many consecutive global indices share no two leading tokens.
constexpr std::uint64_t kDistinctLeadingPairs =
    static_cast<std::uint64_t>(kPromptIdRange) * static_cast<std::uint64_t>(kPromptIdRange);

// What makes a run's prompts its own: from --seed (reproducible), or fresh from the system's entropy.
std::uint64_t run_nonce_from_seed(std::uint64_t seed);
std::uint64_t fresh_run_nonce();

// Mixes two numbers into a well-spread key (for the pseudo-random ids of one part of a prompt).
std::uint64_t mix_keys(std::uint64_t a, std::uint64_t b);

// Appends `count` ids starting as the unique prompt of `global_index` in the run `nonce` (above).
void append_unique_ids(std::vector<int>& ids, int count, std::uint64_t nonce, std::uint64_t global_index);
// Appends `count` pseudo-random ids from `key`: the parts of a prompt after its unique start.
void append_filler_ids(std::vector<int>& ids, int count, std::uint64_t key);

// {"input_ids": [...], "sampling_params": {"max_new_tokens": O, "ignore_eos": true,
// "temperature": 0}, "stream": S}: ignore_eos so the output length is exact, "stream": true so every
// token's arrival is timed.
std::string ids_request_body(const std::vector<int>& ids, int output_tokens, bool stream = true);
// The same with {"text": ...}: the server tokenizes it (and counts it in meta_info.prompt_tokens).
std::string text_request_body(std::string_view text, int output_tokens, bool stream = true);

// The unique prompt of `input_tokens` ids for request `index` of the run whose nonce follows from
// `seed`: what a level sends when its LoadSpec has no `request`.
std::string generate_request_body(int input_tokens, int output_tokens, std::uint64_t seed,
                                  std::uint64_t index, bool stream = true);

}  // namespace pdctl::load

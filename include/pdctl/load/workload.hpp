#pragma once
// What a bench level sends, request by request: each workload is a function of the request's index n
// within the level (warm-ups first, then the measured ones) that gives its PlannedRequest. Pure.
//
//   unique         every prompt its own from its first token (request_body.hpp): nothing for a
//                  prefix cache to serve;
//   shared-prefix  as sglang.bench_serving's generated-shared-prefix dataset: G groups, each with a
//                  system prompt of K tokens its requests share, then a question of Q tokens of the
//                  request's own;
//   multi-turn     conversations of T turns, turn t's prompt the conversation so far;
//   dataset        prompts from a file (config/dataset_file.hpp), sent as text.
//
// A level's prompts are scoped by its PromptSource: the run nonce and the global index of its n = 0.
// The lead of the bench gives every level of a run its own range of global indices (the next level's
// first_index = this one's + the requests it sent, warm-ups included), so no two levels share a prompt
// or a system prompt: every level starts cold, and what one level cached does not flatter the next.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pdctl/load/planned_request.hpp"

namespace pdctl::load {

struct PromptSource {
    std::uint64_t run_nonce = 0;    // run_nonce_from_seed(seed) or fresh_run_nonce() (request_body.hpp)
    std::uint64_t first_index = 0;  // the global index of the level's request n = 0
    bool stream = true;             // the bodies' "stream"
};

using RequestPlan = std::function<PlannedRequest(std::uint64_t n)>;

// --- unique: the row's lengths, every prompt unique in the run.
PlannedRequest unique_request(const PromptSource& source, int input_tokens, int output_tokens,
                              std::uint64_t n);
RequestPlan unique_workload(const PromptSource& source, int input_tokens, int output_tokens);

// --- shared-prefix. bench_serving's defaults: 64 groups of 16 prompts, system prompt 2048, question
// 128, output 256. Request n belongs to group n mod G (round robin: bench_serving shuffles its G × P
// requests, which gives the same share once all are sent, and round robin lets a group's first request
// finish its prefill before the group's second one comes, G requests later). The system prompt of group
// g begins as the unique prompt of global index first_index + g; each question is the request's own.
struct SharedPrefixShape {
    int groups = 64;
    int prompts_per_group = 16;  // with groups, the requests of a level when none are asked for
    int system_tokens = 2048;
    int question_tokens = 128;
    int output_tokens = 256;
    int requests() const { return groups * prompts_per_group; }
};
PlannedRequest shared_prefix_request(const PromptSource& source, const SharedPrefixShape& shape,
                                     std::uint64_t n);
RequestPlan shared_prefix_workload(const PromptSource& source, const SharedPrefixShape& shape);
// The share of the prompt tokens of requests n in [first_n, first_n + count) that a radix cache serves:
// every request but the first of its group (n < G) finds its group's K system tokens cached, so
//   share = (count - firsts) × K / (count × (K + Q)),  firsts = the n < G in the range.
// Pass first_n = the level's warm-ups to predict the measured requests. Assumes the cache holds all
// G × K system tokens and a group's first request finished its prefill before its next one was
// scheduled (true in round robin when G exceeds the requests in flight).
double predicted_shared_prefix_hit_share(const SharedPrefixShape& shape, std::uint64_t first_n,
                                         std::uint64_t count);

// --- multi-turn: conversation c's turn t (1-based) is request n = c × T + t - 1; its prompt is
//   system (K) + user 1 (U) + answer 1 (O) + ... + user t (U),  K + t × U + (t - 1) × O tokens,
// with max_new_tokens O. Turn t > 1 has `after` = n - 1 (sent only once the previous turn finished,
// so its prompt is in the cache first) and every turn the tag "turn t". The answers in the prompt are
// made up from the run's nonce, not what the model said: in a PD deployment the prefill server's cache
// only ever holds prompts (the decode server generates, the prefill never sees those tokens), so what
// the previous turn leaves in the prefill's cache is that turn's prompt, and a made-up answer hits
// exactly as much as the real one would. The conversation begins as the unique prompt of the global
// index of its first turn.
struct MultiTurnShape {
    int turns = 4;
    int system_tokens = 0;
    int user_tokens = 128;    // each user turn
    int output_tokens = 256;  // each answer: the turns' max_new_tokens and the answers in the prompts
};
PlannedRequest multi_turn_request(const PromptSource& source, const MultiTurnShape& shape, std::uint64_t n);
RequestPlan multi_turn_workload(const PromptSource& source, const MultiTurnShape& shape);
// Turn t's prompt length, and the share of it the previous turn left cached (0 for turn 1):
//   (K + (t - 1) × U + (t - 2) × O) / (K + t × U + (t - 1) × O).
int multi_turn_prompt_tokens(const MultiTurnShape& shape, int turn);
double predicted_multi_turn_hit_share(const MultiTurnShape& shape, int turn);
// "turn t" of request n, as its tag says.
int multi_turn_of(const MultiTurnShape& shape, std::uint64_t n);

// --- dataset: request n sends prompt n mod size, in the file's order (shuffle the file to sample it).
// There is no tokenizer in pdctl: the prompt goes as "text", the server counts it (meta_info.
// prompt_tokens), input_tokens is 0. With `tag_prompts` (the default) each prompt begins with a line
// of 8 hex digits unique to the request in the run ((global index + a) × an odd constant, mod 2^32, a
// from the nonce), so neither a rerun nor a prompt sent again within the run is served from the cache;
// what two prompts of a run can still share is their first few tokens (the tokenizer's BOS, the tag's
// first characters), a few tokens of a cached share that the server's count shows.
struct TextPrompt {
    std::string text;
    int output_tokens = 0;  // max_new_tokens; 0: the workload's default
};
struct DatasetShape {
    std::vector<TextPrompt> prompts;  // at least one
    int default_output_tokens = 256;
    bool tag_prompts = true;
};
PlannedRequest dataset_request(const PromptSource& source, const DatasetShape& shape, std::uint64_t n);
// `shape` is copied into the plan.
RequestPlan dataset_workload(const PromptSource& source, DatasetShape shape);
// The tag line of a dataset prompt (above), without its newline.
std::string dataset_prompt_tag(std::uint64_t run_nonce, std::uint64_t global_index);

}  // namespace pdctl::load

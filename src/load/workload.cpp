#include "pdctl/load/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "pdctl/load/request_body.hpp"
#include "pdctl/util/splitmix.hpp"

namespace pdctl::load {
namespace {

// The parts of a prompt after its unique start get keys of their own, so a question is not the start
// of a turn's answer.
enum class PromptPart : std::uint64_t { question = 1, user_turn = 2, answer = 3 };

std::uint64_t part_key(std::uint64_t nonce, std::uint64_t global_index, PromptPart part,
                       std::uint64_t which) {
    return mix_keys(mix_keys(nonce, global_index), (static_cast<std::uint64_t>(part) << 32) ^ which);
}

std::uint64_t global_of(const PromptSource& source, std::uint64_t n) {
    return source.first_index + n;
}

}  // namespace

PlannedRequest unique_request(const PromptSource& source, int input_tokens, int output_tokens,
                              std::uint64_t n) {
    std::vector<int> ids;
    ids.reserve(static_cast<std::size_t>(std::max(input_tokens, 0)));
    append_unique_ids(ids, input_tokens, source.run_nonce, global_of(source, n));
    PlannedRequest planned;
    planned.body = ids_request_body(ids, output_tokens, source.stream);
    planned.input_tokens = input_tokens;
    planned.output_tokens = output_tokens;
    return planned;
}

RequestPlan unique_workload(const PromptSource& source, int input_tokens, int output_tokens) {
    return [source, input_tokens, output_tokens](std::uint64_t n) {
        return unique_request(source, input_tokens, output_tokens, n);
    };
}

PlannedRequest shared_prefix_request(const PromptSource& source, const SharedPrefixShape& shape,
                                     std::uint64_t n) {
    if (shape.groups <= 0) throw std::invalid_argument("shared-prefix workload: groups must be at least 1");
    const auto group = n % static_cast<std::uint64_t>(shape.groups);
    std::vector<int> ids;
    ids.reserve(static_cast<std::size_t>(shape.system_tokens) +
                static_cast<std::size_t>(shape.question_tokens));
    append_unique_ids(ids, shape.system_tokens, source.run_nonce, global_of(source, group));
    append_filler_ids(ids, shape.question_tokens,
                      part_key(source.run_nonce, global_of(source, n), PromptPart::question, 0));
    PlannedRequest planned;
    planned.body = ids_request_body(ids, shape.output_tokens, source.stream);
    planned.input_tokens = static_cast<int>(ids.size());
    planned.output_tokens = shape.output_tokens;
    return planned;
}

RequestPlan shared_prefix_workload(const PromptSource& source, const SharedPrefixShape& shape) {
    return [source, shape](std::uint64_t n) { return shared_prefix_request(source, shape, n); };
}

double predicted_shared_prefix_hit_share(const SharedPrefixShape& shape, std::uint64_t first_n,
                                         std::uint64_t count) {
    const double prompt = static_cast<double>(shape.system_tokens) + shape.question_tokens;
    if (count == 0 || prompt <= 0 || shape.groups <= 0) return 0;
    const auto groups = static_cast<std::uint64_t>(shape.groups);
    const std::uint64_t firsts = first_n >= groups ? 0 : std::min(groups, first_n + count) - first_n;
    return static_cast<double>(count - firsts) * shape.system_tokens / (static_cast<double>(count) * prompt);
}

int multi_turn_of(const MultiTurnShape& shape, std::uint64_t n) {
    if (shape.turns <= 0) throw std::invalid_argument("multi-turn workload: turns must be at least 1");
    return static_cast<int>(n % static_cast<std::uint64_t>(shape.turns)) + 1;
}

PlannedRequest multi_turn_request(const PromptSource& source, const MultiTurnShape& shape, std::uint64_t n) {
    const int turn = multi_turn_of(shape, n);
    const std::uint64_t first_turn = n - static_cast<std::uint64_t>(turn - 1);
    const std::uint64_t conversation = global_of(source, first_turn);
    std::vector<int> ids;
    ids.reserve(static_cast<std::size_t>(multi_turn_prompt_tokens(shape, turn)));
    // The conversation's unique start is its system prompt, or with none its first user turn.
    const int unique_start = shape.system_tokens > 0 ? shape.system_tokens : shape.user_tokens;
    append_unique_ids(ids, unique_start, source.run_nonce, conversation);
    for (int t = 1; t <= turn; ++t) {
        if (t > 1 || shape.system_tokens > 0)
            append_filler_ids(ids, shape.user_tokens,
                              part_key(source.run_nonce, conversation, PromptPart::user_turn,
                                       static_cast<std::uint64_t>(t)));
        if (t < turn)
            append_filler_ids(
                ids, shape.output_tokens,
                part_key(source.run_nonce, conversation, PromptPart::answer, static_cast<std::uint64_t>(t)));
    }
    PlannedRequest planned;
    planned.body = ids_request_body(ids, shape.output_tokens, source.stream);
    planned.input_tokens = static_cast<int>(ids.size());
    planned.output_tokens = shape.output_tokens;
    planned.after = turn > 1 ? static_cast<long long>(n - 1) : -1;
    planned.tag = fmt::format("turn {}", turn);
    return planned;
}

RequestPlan multi_turn_workload(const PromptSource& source, const MultiTurnShape& shape) {
    return [source, shape](std::uint64_t n) { return multi_turn_request(source, shape, n); };
}

int multi_turn_prompt_tokens(const MultiTurnShape& shape, int turn) {
    return shape.system_tokens + turn * shape.user_tokens + (turn - 1) * shape.output_tokens;
}

double predicted_multi_turn_hit_share(const MultiTurnShape& shape, int turn) {
    if (turn <= 1) return 0;
    const int prompt = multi_turn_prompt_tokens(shape, turn);
    return prompt > 0 ? static_cast<double>(multi_turn_prompt_tokens(shape, turn - 1)) / prompt : 0;
}

std::string dataset_prompt_tag(std::uint64_t run_nonce, std::uint64_t global_index) {
    std::uint64_t state = run_nonce ^ 0x7461670000000000ULL;
    const std::uint64_t offset = util::splitmix64(state);
    // An odd multiplier is a bijection modulo 2^32: 2^32 consecutive indices get distinct tags, and
    // neighbouring indices differ in their first digits.
    const auto tag = static_cast<std::uint32_t>((global_index + offset) * 0x9e3779b1ULL);
    return fmt::format("{:08x}", tag);
}

PlannedRequest dataset_request(const PromptSource& source, const DatasetShape& shape, std::uint64_t n) {
    if (shape.prompts.empty()) throw std::invalid_argument("dataset workload: no prompts");
    const TextPrompt& prompt = shape.prompts[n % shape.prompts.size()];
    PlannedRequest planned;
    planned.output_tokens = prompt.output_tokens > 0 ? prompt.output_tokens : shape.default_output_tokens;
    const std::string text =
        shape.tag_prompts ? dataset_prompt_tag(source.run_nonce, global_of(source, n)) + "\n" + prompt.text
                          : prompt.text;
    planned.body = text_request_body(text, planned.output_tokens, source.stream);
    return planned;
}

RequestPlan dataset_workload(const PromptSource& source, DatasetShape shape) {
    return [source, shape = std::move(shape)](std::uint64_t n) { return dataset_request(source, shape, n); };
}

}  // namespace pdctl::load

#include "pdctl/load/request_body.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "pdctl/util/splitmix.hpp"

namespace pdctl::load {
namespace {

constexpr std::uint64_t kRange = kPromptIdRange;

int id_from(std::uint64_t value) {
    return kFirstPromptId + static_cast<int>(value % kRange);
}

// The two offsets a and b of the leading ids (request_body.hpp), drawn from the nonce.
struct LeadingOffsets {
    std::uint64_t a;
    std::uint64_t b;
};

LeadingOffsets offsets_of(std::uint64_t nonce) {
    std::uint64_t state = nonce;
    const std::uint64_t a = util::splitmix64(state) % kRange;
    const std::uint64_t b = util::splitmix64(state) % kRange;
    return {a, b};
}

void append_sampling(fmt::memory_buffer& out, int output_tokens, bool stream) {
    fmt::format_to(
        std::back_inserter(out),
        R"("sampling_params":{{"max_new_tokens":{},"ignore_eos":true,"temperature":0}},"stream":{}}})",
        output_tokens, stream);
}

}  // namespace

std::uint64_t run_nonce_from_seed(std::uint64_t seed) {
    // Salted, so the nonce of --seed 1 is not a small number shared with anything else seeded by 1.
    std::uint64_t state = seed ^ 0x70726f6d70747321ULL;
    return util::splitmix64(state);
}

std::uint64_t fresh_run_nonce() {
    std::random_device entropy;
    return (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
}

std::uint64_t mix_keys(std::uint64_t a, std::uint64_t b) {
    std::uint64_t state = a * 0x100000001b3ULL ^ b;
    util::splitmix64(state);
    return util::splitmix64(state);
}

void append_unique_ids(std::vector<int>& ids, int count, std::uint64_t nonce, std::uint64_t global_index) {
    if (count <= 0) return;
    const auto [a, b] = offsets_of(nonce);
    const std::uint64_t shifted = global_index + a;
    ids.push_back(id_from(shifted));
    if (count >= 2) ids.push_back(id_from(shifted / kRange + b));
    append_filler_ids(ids, count - 2, mix_keys(nonce, global_index));
}

void append_filler_ids(std::vector<int>& ids, int count, std::uint64_t key) {
    std::uint64_t state = key;
    for (int i = 0; i < count; ++i) ids.push_back(id_from(util::splitmix64(state)));
}

std::string ids_request_body(const std::vector<int>& ids, int output_tokens, bool stream) {
    fmt::memory_buffer out;
    fmt::format_to(std::back_inserter(out), R"({{"input_ids":[)");
    for (std::size_t i = 0; i < ids.size(); ++i)
        fmt::format_to(std::back_inserter(out), "{}{}", i == 0 ? "" : ",", ids[i]);
    fmt::format_to(std::back_inserter(out), "],");
    append_sampling(out, output_tokens, stream);
    return fmt::to_string(out);
}

std::string text_request_body(std::string_view text, int output_tokens, bool stream) {
    fmt::memory_buffer out;
    // dump() escapes the text as JSON; invalid UTF-8 is replaced rather than thrown on.
    const auto quoted =
        nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    fmt::format_to(std::back_inserter(out), R"({{"text":{},)", quoted);
    append_sampling(out, output_tokens, stream);
    return fmt::to_string(out);
}

std::string generate_request_body(int input_tokens, int output_tokens, std::uint64_t seed,
                                  std::uint64_t index, bool stream) {
    std::vector<int> ids;
    ids.reserve(static_cast<std::size_t>(std::max(input_tokens, 0)));
    append_unique_ids(ids, input_tokens, run_nonce_from_seed(seed), index);
    return ids_request_body(ids, output_tokens, stream);
}

}  // namespace pdctl::load

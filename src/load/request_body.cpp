#include "pdctl/load/request_body.hpp"

#include <fmt/format.h>

#include "splitmix.hpp"

namespace pdctl::load {
namespace {

// Ids well inside any vocabulary and past the special tokens at its start.
constexpr std::uint64_t kFirstId = 1000;
constexpr std::uint64_t kIdRange = 30000;

}  // namespace

std::string generate_request_body(int input_tokens, int output_tokens, std::uint64_t seed,
                                  std::uint64_t index, bool stream) {
    std::uint64_t state = seed * 0x100000001b3ULL + index;
    fmt::memory_buffer out;
    fmt::format_to(std::back_inserter(out), R"({{"input_ids":[)");
    for (int i = 0; i < input_tokens; ++i)
        fmt::format_to(std::back_inserter(out), "{}{}", i == 0 ? "" : ",",
                       kFirstId + splitmix64(state) % kIdRange);
    fmt::format_to(
        std::back_inserter(out),
        R"(],"sampling_params":{{"max_new_tokens":{},"ignore_eos":true,"temperature":0}},"stream":{}}})",
        output_tokens, stream);
    return fmt::to_string(out);
}

}  // namespace pdctl::load

#pragma once
// The body of a bench request for SGLang's native POST /generate: `input_ids` of exactly the row's
// length (no tokenizer needed), seeded so the same run sends the same prompts, and different for every
// request so no prefix cache makes later requests cheaper; ignore_eos so the output length is exact;
// "stream": true so every token's arrival is timed. Pure.

#include <cstdint>
#include <string>

namespace pdctl::load {

std::string generate_request_body(int input_tokens, int output_tokens, std::uint64_t seed,
                                  std::uint64_t index, bool stream = true);

}  // namespace pdctl::load

#pragma once
// What the router's answer to `POST /generate` says: the generated text, or why the smoke check failed.
// Pure, so the bytes a router (or anything listening on its port) sends back can be tested and fuzzed
// without a server (tests/fuzz/http_answer_fuzz.cpp).

#include <string>

namespace pdctl::health {

struct GenerateAnswer {
    std::string text;   // the "text" field of a JSON object body, if any
    std::string error;  // empty = the check passed (HTTP 200 and non-empty text)
};

GenerateAnswer read_generate_answer(int status, const std::string& body);

// The JSON body of a `POST /generate`: {"text": prompt, "sampling_params": {"max_new_tokens": N,
// "ignore_eos": true}} (SGLang's native API; ignore_eos so that N tokens come back).
std::string generate_request(const std::string& prompt, int max_new_tokens);

}  // namespace pdctl::health

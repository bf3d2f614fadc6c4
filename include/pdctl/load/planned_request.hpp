#pragma once
// One request a workload asks the load runner to send: its body and what the client knows of it.

#include <string>

namespace pdctl::load {

struct PlannedRequest {
    std::string body;       // JSON for SGLang's POST /generate, "stream" set as the level asks
    int input_tokens = 0;   // as built by the client; 0: a text prompt, the server's count is read back
    int output_tokens = 0;  // max_new_tokens with ignore_eos: a shorter answer is a failure
    // The index n of a request that must have finished before this one is sent (a conversation's
    // previous turn: its prompt must be in the prefix cache first); -1: none.
    long long after = -1;
    std::string tag;  // what the report groups it by within its row ("turn 2"); empty: none
};

}  // namespace pdctl::load

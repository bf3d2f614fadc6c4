#pragma once
// Whether a text (a failed request's answer, a log line) names a failure of the KV path between a
// prefill and a decode: the messages SGLang's PD code and the Mooncake transfer engine write
// (bootstrap, transfer, kvcache, KVPoll). Pure, for the gate's fail-fast rule and for picking the log
// lines that explain it.

#include <string>
#include <string_view>

namespace pdctl::health {

bool names_kv_path_failure(std::string_view text);

// The same failure written for another request: the numbers that identify one request (a
// bootstrap_room, a request id: runs of 5 or more digits) are replaced by '#', so that "KV transfer
// timed out (bootstrap_room=8812...)" twice in a row counts as the same answer.
std::string without_request_ids(std::string_view text);

}  // namespace pdctl::health

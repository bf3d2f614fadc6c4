#pragma once
// `pdctl lock status` and `pdctl lock release`: what the coordinator's lock directory holds, for people
// and as one JSON document. `now_epoch` dates the holder ("3m12s ago").

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/lock.hpp"

namespace pdctl::report {

using ops::LockView;

std::string render_lock_status_text(const LockView& lock, long long now_epoch);
nlohmann::json lock_status_to_json(const LockView& lock, long long now_epoch);

// What `lock release` did, in one line: printed as it is, or the "message" of the JSON document.
std::string lock_already_free_message(const LockView& lock);
std::string lock_released_own_message(const LockView& lock, long long now_epoch);
nlohmann::json lock_release_to_json(const LockView& lock, const std::string& message, bool released,
                                    bool broken, long long now_epoch);

}  // namespace pdctl::report

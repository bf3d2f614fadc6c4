#pragma once
// Who is running this pdctl, for the deploy lock and the journal, and whether another pdctl named by a
// lock still runs (only answerable on the same host).

#include <string>

#include "pdctl/state/lock.hpp"

namespace pdctl::state {

struct OperatorIdentity {
    std::string user;
    std::string host;
    int pid = 0;
    long long pid_start = 0;  // /proc/self/stat start time, see state::lock::Holder::pid_start

    std::string who() const { return user + "@" + host; }
};

OperatorIdentity current_operator();

// kUnknown for a holder on another host; kDead when its pid is gone, a zombie, or another process now.
state::lock::Liveness holder_liveness(const state::lock::Holder& holder, const OperatorIdentity& me);

// The lock's holder file for this process.
state::lock::Holder holder_for(const OperatorIdentity& me, const std::string& verb, const std::string& token);

}  // namespace pdctl::state

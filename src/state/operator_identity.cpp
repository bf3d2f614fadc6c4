#include "pdctl/state/operator_identity.hpp"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pdctl/util/wall_clock.hpp"

namespace pdctl::state {
namespace {

struct ProcessStat {
    bool exists = false;
    char state = '?';
    long long start = 0;
};

// /proc/PID/stat: "pid (comm) state ppid ... starttime(22) ...". comm may hold spaces and ')', so the
// fields are counted from the last ')'.
ProcessStat read_stat(int pid) {
    ProcessStat stat;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return stat;
    const auto paren = text.rfind(')');
    if (paren == std::string::npos) return stat;
    std::istringstream fields(text.substr(paren + 1));
    std::string field;
    for (int index = 3; fields >> field; ++index) {
        if (index == 3) stat.state = field.empty() ? '?' : field[0];
        if (index == 22) {
            try {
                stat.start = std::stoll(field);
            } catch (const std::exception&) {
                stat.start = 0;
            }
            break;
        }
    }
    stat.exists = true;
    return stat;
}

std::string user_name() {
    if (const passwd* entry = ::getpwuid(::geteuid()); entry && entry->pw_name) return entry->pw_name;
    if (const char* user = std::getenv("USER"); user && *user) return user;
    return "uid" + std::to_string(::geteuid());
}

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown-host";
    return name;
}

}  // namespace

OperatorIdentity current_operator() {
    OperatorIdentity me;
    me.user = user_name();
    me.host = host_name();
    me.pid = static_cast<int>(::getpid());
    me.pid_start = read_stat(me.pid).start;
    return me;
}

state::lock::Liveness holder_liveness(const state::lock::Holder& holder, const OperatorIdentity& me) {
    using state::lock::Liveness;
    if (holder.host != me.host) return Liveness::kUnknown;
    if (holder.pid <= 0) return Liveness::kDead;
    // kill(pid, 0): EPERM means a process of another user holds the pid, which is still a live process.
    if (::kill(holder.pid, 0) != 0 && errno == ESRCH) return Liveness::kDead;
    const auto stat = read_stat(holder.pid);
    if (!stat.exists || stat.state == 'Z') return Liveness::kDead;
    if (holder.pid_start > 0 && stat.start != holder.pid_start) return Liveness::kDead;
    return Liveness::kAlive;
}

state::lock::Holder holder_for(const OperatorIdentity& me, const std::string& verb,
                               const std::string& token) {
    const auto now_ms = util::epoch_ms_now();
    state::lock::Holder holder;
    holder.user = me.user;
    holder.host = me.host;
    holder.pid = me.pid;
    holder.pid_start = me.pid_start;
    holder.since = util::utc_text(now_ms);
    holder.since_epoch = now_ms / 1000;
    holder.verb = verb;
    holder.version = PDCTL_VERSION;
    holder.token = token;
    return holder;
}

}  // namespace pdctl::state

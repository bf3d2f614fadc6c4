#include "pdctl/state/lock.hpp"

#include <fmt/format.h>

#include <sstream>

#include "embedded/state_scripts.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::state::lock {
namespace {

// The scripts are src/state/scripts/lock_*.sh: the lock directory and the token arrive as positional
// parameters, the holder text on stdin, so nothing an operator controls is ever parsed by the shell.

exec::Command script(std::string_view body, const char* name, std::vector<std::string> args) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(body), name};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.timeout = std::chrono::seconds(20);
    return command;
}

std::string one_line(std::string value) {
    for (auto& c : value)
        if (c == '\n' || c == '\r') c = ' ';
    return value;
}

// 0 for anything but a whole number: a damaged field must not hide who holds the lock.
long long to_number(const std::string& text) {
    try {
        std::size_t used = 0;
        const long long value = text.empty() ? 0 : std::stoll(text, &used);
        return used == text.size() ? value : 0;
    } catch (const std::exception&) {
        return 0;
    }
}

// The first line of a script's answer, and what follows it.
std::pair<std::string, std::string> split_answer(const std::string& out) {
    const auto newline = out.find('\n');
    if (newline == std::string::npos) return {out, ""};
    return {out.substr(0, newline), out.substr(newline + 1)};
}

void require_ran(const exec::CommandResult& result, const char* what) {
    if (!result.transport_error.empty())
        throw Failure(ExitCode::kUnreachable, fmt::format("cannot {}: {}", what, result.transport_error));
    if (result.timed_out) throw Failure(ExitCode::kInternal, fmt::format("cannot {}: timed out", what));
    if (result.exit_code != 0)
        throw Failure(ExitCode::kInternal, fmt::format("cannot {}: {}", what, exec::failure_reason(result)));
}

Observed observed_from(const std::string& word, const std::string& rest, const char* what) {
    if (word == "free") return {State::kFree, {}};
    if (word == "incomplete") return {State::kIncomplete, {}};
    if (word == "held") {
        auto holder = parse_holder(rest);
        return {holder.empty() ? State::kIncomplete : State::kHeld, holder};
    }
    throw Failure(ExitCode::kInternal, fmt::format("cannot {}: unexpected answer '{}'", what, word));
}

std::string age_text(long long seconds) {
    if (seconds < 0) seconds = 0;
    if (seconds < 60) return fmt::format("{}s", seconds);
    if (seconds < 3600) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
    if (seconds < 86400) return fmt::format("{}h{:02}m", seconds / 3600, (seconds % 3600) / 60);
    return fmt::format("{}d{:02}h", seconds / 86400, (seconds % 86400) / 3600);
}

}  // namespace

std::string lock_path(const std::string& cluster_dir) {
    return cluster_dir + "/lock";
}

std::string holder_text(const Holder& holder) {
    std::string text;
    const auto add = [&](const char* key, const std::string& value) {
        text += fmt::format("{}={}\n", key, one_line(value));
    };
    add("user", holder.user);
    add("host", holder.host);
    add("pid", std::to_string(holder.pid));
    add("pid_start", std::to_string(holder.pid_start));
    add("since", holder.since);
    add("since_epoch", std::to_string(holder.since_epoch));
    add("verb", holder.verb);
    add("version", holder.version);
    add("token", holder.token);
    return text;
}

Holder parse_holder(const std::string& text) {
    Holder holder;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = line.substr(0, eq);
        const std::string value = line.substr(eq + 1);
        if (key == "user")
            holder.user = value;
        else if (key == "host")
            holder.host = value;
        else if (key == "pid")
            holder.pid = static_cast<int>(to_number(value));
        else if (key == "pid_start")
            holder.pid_start = to_number(value);
        else if (key == "since")
            holder.since = value;
        else if (key == "since_epoch")
            holder.since_epoch = to_number(value);
        else if (key == "verb")
            holder.verb = value;
        else if (key == "version")
            holder.version = value;
        else if (key == "token")
            holder.token = value;
        // Unknown keys come from a newer pdctl: ignored, so versions can share a cluster.
    }
    return holder;
}

exec::Command acquire_command(const std::string& lock_dir, const Holder& me) {
    auto command = script(scripts::lock_acquire, "pdctl-lock-acquire", {lock_dir});
    command.stdin_data = holder_text(me);
    return command;
}

exec::Command release_command(const std::string& lock_dir, const std::string& token) {
    return script(scripts::lock_release, "pdctl-lock-release", {lock_dir, token});
}

exec::Command status_command(const std::string& lock_dir) {
    return script(scripts::lock_status, "pdctl-lock-status", {lock_dir});
}

AcquireResult parse_acquire(const exec::CommandResult& result) {
    require_ran(result, "take the deploy lock");
    const auto [word, rest] = split_answer(result.out);
    if (word == "acquired") return {true, {}};
    return {false, observed_from(word, rest, "take the deploy lock")};
}

ReleaseResult parse_release(const exec::CommandResult& result) {
    require_ran(result, "release the deploy lock");
    const auto [word, rest] = split_answer(result.out);
    if (word == "released") return {ReleaseOutcome::kReleased, {}};
    if (word == "free") return {ReleaseOutcome::kAlreadyFree, {}};
    if (word == "changed") return {ReleaseOutcome::kChangedHands, parse_holder(rest)};
    throw Failure(ExitCode::kInternal,
                  fmt::format("cannot release the deploy lock: unexpected answer '{}'", word));
}

Observed parse_status(const exec::CommandResult& result) {
    require_ran(result, "read the deploy lock");
    const auto [word, rest] = split_answer(result.out);
    return observed_from(word, rest, "read the deploy lock");
}

std::string describe_holder(const Holder& holder, long long now_epoch) {
    std::string text = fmt::format("{} (pid {}", holder.who(), holder.pid);
    if (!holder.verb.empty()) text += ", " + holder.verb;
    if (!holder.since.empty()) text += ", since " + holder.since;
    if (now_epoch > 0 && holder.since_epoch > 0)
        text += ", " + age_text(now_epoch - holder.since_epoch) + " ago";
    return text + ")";
}

std::string locked_message(const Observed& current, Liveness liveness, const std::string& where,
                           long long now_epoch) {
    if (current.state == State::kIncomplete)
        return fmt::format(
            "deploy lock {} exists but names no holder (a pdctl taking it right now, or one "
            "that died doing so)",
            where);
    std::string text =
        fmt::format("deploy lock held by {} at {}", describe_holder(current.holder, now_epoch), where);
    if (liveness == Liveness::kDead)
        text += fmt::format(" — STALE: pid {} no longer runs on {}", current.holder.pid, current.holder.host);
    return text;
}

std::string locked_hint(const Observed& current, Liveness liveness) {
    if (current.state == State::kIncomplete)
        return "`pdctl lock status` shows it; if no pdctl is deploying, `pdctl lock release --force` removes "
               "it";
    if (liveness == Liveness::kDead)
        return "its pdctl is gone, but pdctl never breaks a lock by itself: check nothing is deploying, then "
               "`pdctl lock release --force`";
    return "wait for that run (`pdctl lock status`, `pdctl history`); if it is gone, `pdctl lock release "
           "--force` breaks the lock";
}

bool may_release_without_force(const Holder& holder, const std::string& user, const std::string& host) {
    return !holder.empty() && holder.user == user && holder.host == host;
}

}  // namespace pdctl::state::lock

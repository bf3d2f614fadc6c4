#include "ssh_channel_io.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <string.h>

#include <vector>

namespace pdctl::exec::detail {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kWriteChunk = 32 * 1024;
// After a deadline, how long closing the abandoned channel may take before the session is dropped.
constexpr auto kCloseGrace = std::chrono::seconds(2);

bool is_eagain(ssize_t rc) {
    return rc == LIBSSH2_ERROR_EAGAIN;
}

// Whether libssh2 already holds something for this channel that a read would return: data of either
// stream, or the EOF. A read of one stream makes libssh2 take every packet the socket holds, the other
// stream's data, the EOF and the close included; the socket then stays quiet, since the server has
// said everything and waits for our close. Waiting on the socket at that point would wait out the
// whole deadline and report a command that ended as timed out (a 20 s `status` stall on one node).
bool queued_in_libssh2(LIBSSH2_CHANNEL* channel) {
    return libssh2_poll_channel_read(channel, 0) > 0 || libssh2_poll_channel_read(channel, 1) > 0 ||
           libssh2_channel_eof(channel) > 0;
}

// SSH names signals without the SIG prefix ("KILL"); pdctl reports "SIGKILL" and 128 + number, like
// the local executor.
int signal_number(const std::string& name) {
    for (int sig = 1; sig < NSIG; ++sig) {
        const char* abbrev = ::sigabbrev_np(sig);
        if (abbrev && name == abbrev) return sig;
    }
    return 0;
}

class Channel {
  public:
    Channel(SshSession& session, util::SteadyClock::time_point deadline) : session_(session) {
        LIBSSH2_CHANNEL* channel = nullptr;
        const auto rc = session_.until_done(deadline, [&] {
            channel = libssh2_channel_open_session(session_.raw());
            return channel ? 0 : libssh2_session_last_errno(session_.raw());
        });
        if (!rc) throw Timeout{};
        if (!channel) throw SshError("cannot open a channel: " + session_.last_error());
        channel_ = channel;
    }
    ~Channel() {
        // A broken session is freed as a whole, with its channels; talking to it could only wait.
        if (!channel_ || session_.broken()) return;
        // Frees the channel; bounded, since the server may no longer answer.
        const auto deadline = util::SteadyClock::now() + kCloseGrace;
        if (!session_.until_done(deadline, [&] { return libssh2_channel_free(channel_); }))
            session_.mark_broken();
    }
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    struct Timeout {};
    LIBSSH2_CHANNEL* get() const { return channel_; }

  private:
    SshSession& session_;
    LIBSSH2_CHANNEL* channel_ = nullptr;
};

}  // namespace

CommandResult run_on_session(SshSession& session, const std::string& script, const std::string& stdin_data,
                             util::SteadyClock::time_point deadline, const OutputSink* on_output,
                             std::string* stalled_at) {
    CommandResult result;
    auto stalled = [&](std::string where) {
        if (stalled_at) *stalled_at = std::move(where);
        result.timed_out = true;
    };
    LIBSSH2_SESSION* raw = session.raw();
    std::optional<Channel> holder;
    try {
        holder.emplace(session, deadline);
    } catch (const Channel::Timeout&) {
        stalled("opening the channel");
        session.mark_broken();  // the server did not even open a channel in time
        return result;
    }
    LIBSSH2_CHANNEL* channel = holder->get();

    auto lost = [&](const std::string& what) {
        session.mark_broken();
        return SshError("connection lost " + what + ": " + session.last_error(), true);
    };

    const auto exec = session.until_done(deadline, [&] {
        return libssh2_channel_process_startup(channel, "exec", 4, script.data(),
                                               static_cast<unsigned>(script.size()));
    });
    if (!exec) {
        stalled("starting the command");
        return result;
    }
    if (*exec != 0) {
        if (*exec == LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED)
            throw SshError("the server refused to run the command", true);
        throw lost("while starting the command");
    }

    std::vector<char> buffer(kReadChunk);
    std::size_t written = 0;
    bool eof_sent = false, out_done = false, err_done = false;
    while (!(out_done && err_done)) {
        bool progress = false;
        if (written < stdin_data.size()) {
            const auto n = libssh2_channel_write(channel, stdin_data.data() + written,
                                                 std::min(kWriteChunk, stdin_data.size() - written));
            if (n > 0) {
                written += static_cast<std::size_t>(n);
                progress = true;
            } else if (!is_eagain(n)) {
                // The command stopped reading (exited or closed stdin): the rest of stdin is dropped,
                // as a local pipe would; its exit status tells what happened.
                written = stdin_data.size();
            }
        }
        if (written == stdin_data.size() && !eof_sent) {
            const int rc = libssh2_channel_send_eof(channel);
            if (rc == 0 || !is_eagain(rc)) eof_sent = true;
        }
        for (int stream = 0; stream < 2; ++stream) {
            bool& done = stream == 0 ? out_done : err_done;
            std::string& sink = stream == 0 ? result.out : result.err;
            while (!done) {
                const auto n = libssh2_channel_read_ex(channel, stream, buffer.data(), buffer.size());
                if (n > 0) {
                    sink.append(buffer.data(), static_cast<std::size_t>(n));
                    if (on_output && *on_output)
                        (*on_output)(stream == 1,
                                     std::string_view(buffer.data(), static_cast<std::size_t>(n)));
                    progress = true;
                } else if (n == 0) {
                    // The server sent EOF (or closed) and nothing of this stream is left. (Not
                    // libssh2_channel_eof(): it reports no EOF while the other stream has data queued.)
                    // Progress too: the read that found it may have taken the other stream's last data
                    // (or a close that came without an EOF) off the socket (queued_in_libssh2).
                    done = true;
                    progress = true;
                } else if (is_eagain(n)) {
                    break;
                } else {
                    throw lost("while reading the command's output");
                }
            }
        }
        if (out_done && err_done) break;
        if (!progress && !queued_in_libssh2(channel) && !session.wait(deadline)) {
            // sshd closes a channel only after its command exited (to send the exit status first), and
            // libssh2 1.10 cannot send a signal: the only way to let go of the command is to drop the
            // connection. The next command for this node connects again. Without a pty, sshd does not
            // signal the command: it runs on until it next writes to its closed output, or ends.
            stalled(fmt::format(
                "reading its output ({} bytes of stdout{}, {} of stderr{}; stdin {}/{} bytes{})",
                result.out.size(), out_done ? " to EOF" : "", result.err.size(), err_done ? " to EOF" : "",
                written, stdin_data.size(), eof_sent ? " and EOF" : ""));
            session.mark_broken();
            return result;
        }
    }

    // Both streams are at EOF: wait for the server's close, which follows the exit status.
    const auto close_deadline = std::max(deadline, util::SteadyClock::now() + kCloseGrace);
    const auto closed = session.until_done(close_deadline, [&] { return libssh2_channel_close(channel); });
    if (!closed || *closed != 0) throw lost("while waiting for the command's exit status");
    session.until_done(close_deadline, [&] { return libssh2_channel_wait_closed(channel); });

    char* signal = nullptr;
    std::size_t signal_length = 0;
    char* message = nullptr;
    std::size_t message_length = 0;
    char* language = nullptr;
    std::size_t language_length = 0;
    libssh2_channel_get_exit_signal(channel, &signal, &signal_length, &message, &message_length, &language,
                                    &language_length);
    if (signal) {
        const std::string name(signal, signal_length);
        result.signal = "SIG" + name;
        const int number = signal_number(name);
        result.exit_code = number > 0 ? 128 + number : -1;
        libssh2_free(raw, signal);
    } else {
        result.exit_code = libssh2_channel_get_exit_status(channel);
    }
    if (message) libssh2_free(raw, message);
    if (language) libssh2_free(raw, language);
    return result;
}

}  // namespace pdctl::exec::detail

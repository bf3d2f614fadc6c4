// A passenger session of OpenSSH's mux protocol: hello, new session, three descriptors, then the
// command's output through our pipes and its exit status through the socket.
#include "openssh_mux.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>

#include "child_process.hpp"
#include "pdctl/util/durations.hpp"
#include "unique_fd.hpp"

namespace pdctl::exec::detail {

namespace {

// Message types and the protocol version, from PROTOCOL.mux.
constexpr std::uint32_t kMuxHello = 0x00000001;
constexpr std::uint32_t kMuxVersion = 4;
constexpr std::uint32_t kNewSession = 0x10000002;
constexpr std::uint32_t kAliveCheck = 0x10000004;
constexpr std::uint32_t kTerminate = 0x10000005;
constexpr std::uint32_t kOk = 0x80000001;
constexpr std::uint32_t kPermissionDenied = 0x80000002;
constexpr std::uint32_t kFailure = 0x80000003;
constexpr std::uint32_t kExitMessage = 0x80000004;
constexpr std::uint32_t kAlive = 0x80000005;
constexpr std::uint32_t kSessionOpened = 0x80000006;
constexpr std::uint32_t kNoEscapeChar = 0xffffffff;
constexpr std::uint32_t kRequestId = 1;  // one request per connection: any number will do
// The master's messages are a few words; a longer length means we are not talking to a master.
constexpr std::uint32_t kMaxMessage = 256 * 1024;

void put_u32(std::string& out, std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

void put_string(std::string& out, const std::string& value) {
    put_u32(out, static_cast<std::uint32_t>(value.size()));
    out += value;
}

// A length-prefixed packet, as the protocol frames every message.
std::string framed(const std::string& body) {
    std::string packet;
    put_u32(packet, static_cast<std::uint32_t>(body.size()));
    return packet + body;
}

// Reads the fields of one message body in order; a short body makes every later read fail.
class Reader {
  public:
    explicit Reader(const std::string& body) : body_(body) {}
    std::optional<std::uint32_t> u32() {
        if (body_.size() - at_ < 4) return std::nullopt;
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(body_[at_++]);
        return value;
    }
    std::optional<std::string> string() {
        const auto size = u32();
        if (!size || body_.size() - at_ < *size) return std::nullopt;
        std::string value = body_.substr(at_, *size);
        at_ += *size;
        return value;
    }

  private:
    const std::string& body_;
    std::size_t at_ = 0;
};

int poll_ms(util::SteadyClock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - util::SteadyClock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1000));
}

// Waits until `fd` is ready for `events`; false at the deadline or on a poll error.
bool wait_for(int fd, short events, util::SteadyClock::time_point deadline) {
    while (util::SteadyClock::now() < deadline) {
        pollfd entry{fd, events, 0};
        const int ready = ::poll(&entry, 1, poll_ms(deadline));
        if (ready > 0) return true;
        if (ready < 0 && errno != EINTR) return false;
    }
    return false;
}

bool send_all(int fd, const std::string& data, util::SteadyClock::time_point deadline) {
    std::size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_for(fd, POLLOUT, deadline)) return false;
        } else {
            return false;
        }
    }
    return true;
}

// One descriptor with one byte of data, as OpenSSH's mm_send_fd sends it: the master receives them
// one by one after the session request.
bool send_descriptor(int socket, int fd, util::SteadyClock::time_point deadline) {
    char byte = '\0';
    iovec data{&byte, 1};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
    while (true) {
        const ssize_t n = ::sendmsg(socket, &message, MSG_NOSIGNAL);
        if (n == 1) return true;
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_for(socket, POLLOUT, deadline)) return false;
            continue;
        }
        return false;
    }
}

// The messages of the master as they arrive on the non-blocking socket.
class MessageStream {
  public:
    explicit MessageStream(int fd) : fd_(fd) {}
    enum class Read { more, closed, failed };
    // Reads what the socket has now.
    Read read_available() {
        std::array<char, 4096> chunk{};
        while (true) {
            const ssize_t n = ::recv(fd_, chunk.data(), chunk.size(), 0);
            if (n > 0) {
                buffer_.append(chunk.data(), static_cast<std::size_t>(n));
                continue;
            }
            if (n == 0) return Read::closed;
            if (errno == EAGAIN || errno == EINTR) return Read::more;
            return Read::failed;
        }
    }
    // The next complete message body, if one is there; nullopt also for an oversized length (then
    // malformed() is true).
    std::optional<std::string> next() {
        if (buffer_.size() < 4) return std::nullopt;
        std::string length_field = buffer_.substr(0, 4);
        const auto length = *Reader(length_field).u32();
        if (length > kMaxMessage) {
            malformed_ = true;
            return std::nullopt;
        }
        if (buffer_.size() < 4 + static_cast<std::size_t>(length)) return std::nullopt;
        std::string body = buffer_.substr(4, length);
        buffer_.erase(0, 4 + static_cast<std::size_t>(length));
        return body;
    }
    bool malformed() const { return malformed_; }

  private:
    int fd_;
    std::string buffer_;
    bool malformed_ = false;
};

// Blocks (to the deadline) for the next message; nullopt when the master closed, failed or timed out.
std::optional<std::string> next_message(MessageStream& stream, int fd,
                                        util::SteadyClock::time_point deadline) {
    while (true) {
        if (auto body = stream.next()) return body;
        if (stream.malformed()) return std::nullopt;
        if (!wait_for(fd, POLLIN, deadline)) return std::nullopt;
        if (stream.read_available() != MessageStream::Read::more) {
            if (auto body = stream.next()) return body;
            return std::nullopt;
        }
    }
}

MuxOutcome not_started(std::string why) {
    MuxOutcome outcome;
    outcome.end = MuxOutcome::End::not_started;
    outcome.error = std::move(why);
    return outcome;
}

std::string session_request(const std::string& command) {
    std::string body;
    put_u32(body, kNewSession);
    put_u32(body, kRequestId);
    put_string(body, "");  // reserved
    put_u32(body, 0);      // no tty: pdctl's commands are never interactive (ssh -T)
    put_u32(body, 0);      // no X11 forwarding
    put_u32(body, 0);      // no agent forwarding
    put_u32(body, 0);      // a command, not a subsystem
    put_u32(body, kNoEscapeChar);
    put_string(body, "");  // terminal type: none without a tty
    put_string(body, command);
    return framed(body);  // no environment strings: values travel on stdin, never in a request
}

std::string hello() {
    std::string body;
    put_u32(body, kMuxHello);
    put_u32(body, kMuxVersion);
    return framed(body);
}

// What the master has said about our session so far.
struct SessionState {
    bool opened = false;
    std::uint32_t id = 0;
    std::optional<int> exit_code;  // from MUX_S_EXIT_MESSAGE
    std::string refused;           // MUX_S_PERMISSION_DENIED / MUX_S_FAILURE, with the master's reason
};

void read_session_message(const std::string& body, SessionState& session) {
    Reader reader(body);
    switch (reader.u32().value_or(0)) {
        case kSessionOpened:
            reader.u32();  // our request id
            session.id = reader.u32().value_or(0);
            session.opened = true;
            break;
        case kPermissionDenied:
        case kFailure:
            reader.u32();
            session.refused =
                "the ControlMaster refused the session: " + reader.string().value_or("(no reason given)");
            break;
        case kExitMessage: {
            const auto id = reader.u32();
            const auto value = reader.u32();
            if (session.opened && id == session.id && value) session.exit_code = static_cast<int>(*value);
            break;
        }
        default:
            break;  // MUX_S_OK, MUX_S_TTY_ALLOC_FAIL: nothing for a session without a tty
    }
}

// A connected socket that has exchanged hellos with a master, or the reason why not.
struct Greeted {
    UniqueFd control;
    std::string error;
};

void greet(Greeted& greeted, const std::string& socket, util::SteadyClock::time_point deadline,
           MessageStream& messages) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket.size() >= sizeof(address.sun_path)) {
        greeted.error = "control socket path too long: " + socket;
        return;
    }
    std::memcpy(address.sun_path, socket.c_str(), socket.size() + 1);
    greeted.control.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!greeted.control.open()) {
        greeted.error = std::string("socket: ") + std::strerror(errno);
        return;
    }
    const int fd = greeted.control.get();
    messages = MessageStream(fd);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        greeted.error =
            "the ControlMaster does not answer on its socket: " + std::string(std::strerror(errno));
        return;
    }
    if (!send_all(fd, hello(), deadline)) {
        greeted.error = "the ControlMaster closed its socket before the hello";
        return;
    }
    const auto their_hello = next_message(messages, fd, deadline);
    if (!their_hello) {
        greeted.error = "the ControlMaster did not answer the hello";
        return;
    }
    Reader reader(*their_hello);
    const auto type = reader.u32();
    const auto version = reader.u32();
    if (type != kMuxHello || !version)
        greeted.error = "the ControlMaster's socket does not speak OpenSSH's mux protocol";
    else if (*version != kMuxVersion)
        greeted.error = "the ControlMaster speaks mux protocol version " + std::to_string(*version) +
                        ", pdctl speaks " + std::to_string(kMuxVersion);
}

// One request on a fresh connection to the master: whether it was sent, and the answer if one came.
struct Asked {
    bool sent = false;
    std::optional<std::string> answer;
};

Asked ask_master(const std::string& socket, std::uint32_t request, util::SteadyClock::time_point deadline) {
    Greeted greeted;
    MessageStream messages(-1);
    greet(greeted, socket, deadline, messages);
    if (!greeted.error.empty()) return {};
    std::string body;
    put_u32(body, request);
    put_u32(body, kRequestId);
    if (!send_all(greeted.control.get(), framed(body), deadline)) return {};
    return {true, next_message(messages, greeted.control.get(), deadline)};
}

}  // namespace

pid_t master_pid(const std::string& socket, util::SteadyClock::time_point deadline) {
    const auto asked = ask_master(socket, kAliveCheck, deadline);
    if (!asked.answer) return -1;
    Reader reader(*asked.answer);
    if (reader.u32() != kAlive || !reader.u32()) return -1;  // type, then our request id
    const auto pid = reader.u32();
    return pid ? static_cast<pid_t>(*pid) : -1;
}

bool master_answers(const std::string& socket, util::SteadyClock::time_point deadline) {
    return master_pid(socket, deadline) > 0;
}

bool terminate_master(const std::string& socket, util::SteadyClock::time_point deadline) {
    const auto asked = ask_master(socket, kTerminate, deadline);
    // The master may be gone before its MUX_S_OK is written (`ssh -O exit` allows for that too): only
    // a refusal is a no.
    return asked.sent && (!asked.answer || Reader(*asked.answer).u32() == kOk);
}

MuxOutcome run_over_master(const MuxCommand& command) {
    const auto deadline = command.deadline;
    Greeted greeted;
    MessageStream messages(-1);
    greet(greeted, command.socket, deadline, messages);
    if (!greeted.error.empty()) return not_started(greeted.error);
    UniqueFd& control = greeted.control;

    // The command's three streams: the master gets one end of each, we keep the other.
    int in_fds[2], out_fds[2], err_fds[2];
    if (::pipe2(in_fds, O_CLOEXEC) != 0) return not_started(std::string("pipe: ") + std::strerror(errno));
    UniqueFd in_read(in_fds[0]), in_write(in_fds[1]);
    if (::pipe2(out_fds, O_CLOEXEC) != 0) return not_started(std::string("pipe: ") + std::strerror(errno));
    UniqueFd out_read(out_fds[0]), out_write(out_fds[1]);
    if (::pipe2(err_fds, O_CLOEXEC) != 0) return not_started(std::string("pipe: ") + std::strerror(errno));
    UniqueFd err_read(err_fds[0]), err_write(err_fds[1]);

    const int stdin_for_master = command.stdin_fd >= 0 ? command.stdin_fd : in_read.get();
    if (!send_all(control.get(), session_request(command.command), deadline) ||
        !send_descriptor(control.get(), stdin_for_master, deadline) ||
        !send_descriptor(control.get(), out_write.get(), deadline) ||
        !send_descriptor(control.get(), err_write.get(), deadline))
        return not_started("the ControlMaster closed its socket during the session request");
    // Only the master holds these now: its closing them is the end of the streams.
    in_read.close();
    out_write.close();
    err_write.close();
    if (command.stdin_fd >= 0 || command.stdin_data.empty()) in_write.close();
    ::fcntl(in_write.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(err_read.get(), F_SETFL, O_NONBLOCK);

    MuxOutcome outcome;
    CommandResult& result = outcome.result;
    SessionState session;
    std::size_t stdin_written = 0;
    std::array<char, 65536> buffer{};
    while (control.open() || out_read.open() || err_read.open()) {
        if (!session.opened && session.refused.empty() && util::SteadyClock::now() >= command.open_deadline)
            return not_started(
                "the ControlMaster opened no session in time (its connection to the node is dead?)");
        if (util::SteadyClock::now() >= deadline) {
            result.timed_out = true;
            outcome.end = MuxOutcome::End::timed_out;
            return outcome;  // closing the socket ends the session on the master
        }
        std::array<pollfd, 4> fds{};
        std::array<UniqueFd*, 4> owners{};
        nfds_t count = 0;
        const auto watch = [&](UniqueFd& fd, short events) {
            if (!fd.open()) return;
            fds[count] = pollfd{fd.get(), events, 0};
            owners[count++] = &fd;
        };
        watch(control, POLLIN);
        watch(out_read, POLLIN);
        watch(err_read, POLLIN);
        watch(in_write, POLLOUT);
        const int ready =
            ::poll(fds.data(), count,
                   poll_ms(session.opened ? deadline : std::min(deadline, command.open_deadline)));
        if (ready < 0 && errno != EINTR) break;
        for (nfds_t i = 0; i < count; ++i) {
            if (fds[i].revents == 0) continue;
            UniqueFd& fd = *owners[i];
            if (&fd == &in_write) {
                const auto rest = command.stdin_data.size() - stdin_written;
                const ssize_t n =
                    write_without_sigpipe(fd.get(), command.stdin_data.data() + stdin_written, rest);
                if (n > 0) stdin_written += static_cast<std::size_t>(n);
                if ((n < 0 && errno != EAGAIN) || stdin_written == command.stdin_data.size()) fd.close();
            } else if (&fd == &control) {
                const auto state = messages.read_available();
                while (auto body = messages.next()) {
                    read_session_message(*body, session);
                    if (!session.refused.empty()) return not_started(session.refused);
                }
                if (state != MessageStream::Read::more || messages.malformed()) control.close();
            } else {
                const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
                if (n > 0) {
                    const bool error_stream = &fd != &out_read;
                    (error_stream ? result.err : result.out)
                        .append(buffer.data(), static_cast<std::size_t>(n));
                    if (command.on_output && *command.on_output)
                        (*command.on_output)(error_stream,
                                             std::string_view(buffer.data(), static_cast<std::size_t>(n)));
                } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                    fd.close();
                }
            }
        }
    }
    if (session.exit_code) result.exit_code = *session.exit_code;
    if (!session.opened) {
        outcome.end = MuxOutcome::End::not_started;
        outcome.error = "the ControlMaster closed the session before it opened";
        return outcome;
    }
    outcome.end = session.exit_code ? MuxOutcome::End::exit_status : MuxOutcome::End::no_exit_status;
    return outcome;
}

}  // namespace pdctl::exec::detail

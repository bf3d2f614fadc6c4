#include "ssh_sftp.hpp"

#include <libssh2_sftp.h>

#include <fstream>
#include <memory>
#include <vector>

namespace pdctl::exec::detail {
namespace {

constexpr std::size_t kChunk = 256 * 1024;  // libssh2 pipelines one write into several SFTP packets

std::string sftp_error(LIBSSH2_SFTP* sftp, const SshSession& session) {
    const unsigned long code = libssh2_sftp_last_error(sftp);
    switch (code) {
        case LIBSSH2_FX_NO_SUCH_FILE:
        case LIBSSH2_FX_NO_SUCH_PATH:
            return "no such file or directory";
        case LIBSSH2_FX_PERMISSION_DENIED:
            return "permission denied";
        case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:
        case LIBSSH2_FX_QUOTA_EXCEEDED:
            return "no space left";
        case LIBSSH2_FX_OK:
            return session.last_error();
        default:
            return "SFTP error " + std::to_string(code);
    }
}

}  // namespace

TransferResult sftp_upload(SshSession& session, const std::string& local_path, const std::string& remote_path,
                           int mode, util::SteadyClock::time_point deadline) {
    TransferResult result;
    std::ifstream in(local_path, std::ios::binary);
    if (!in) {
        result.error = "cannot read " + local_path;
        return result;
    }
    LIBSSH2_SESSION* raw = session.raw();
    auto timed_out = [&] {
        session.mark_broken();
        return SshError("upload of " + local_path + " timed out", true);
    };

    LIBSSH2_SFTP* sftp = nullptr;
    const auto started = session.until_done(deadline, [&] {
        sftp = libssh2_sftp_init(raw);
        return sftp ? 0 : libssh2_session_last_errno(raw);
    });
    if (!started) throw timed_out();
    if (!sftp)
        throw SshError("cannot start SFTP (is the sftp subsystem enabled in sshd?): " + session.last_error());
    auto shutdown = [&](LIBSSH2_SFTP* s) {
        session.until_done(util::SteadyClock::now() + std::chrono::seconds(2),
                           [&] { return libssh2_sftp_shutdown(s); });
    };
    std::unique_ptr<LIBSSH2_SFTP, decltype(shutdown)> sftp_guard(sftp, shutdown);

    LIBSSH2_SFTP_HANDLE* handle = nullptr;
    const auto opened = session.until_done(deadline, [&] {
        handle = libssh2_sftp_open_ex(sftp, remote_path.c_str(), static_cast<unsigned>(remote_path.size()),
                                      LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC, 0600,
                                      LIBSSH2_SFTP_OPENFILE);
        return handle ? 0 : libssh2_session_last_errno(raw);
    });
    if (!opened) throw timed_out();
    if (!handle) {
        result.error = "cannot create " + remote_path + ": " + sftp_error(sftp, session);
        return result;
    }
    auto remove_partial = [&] {
        session.until_done(util::SteadyClock::now() + std::chrono::seconds(2), [&] {
            return libssh2_sftp_unlink_ex(sftp, remote_path.c_str(),
                                          static_cast<unsigned>(remote_path.size()));
        });
    };

    std::vector<char> buffer(kChunk);
    bool failed = false;
    while (!failed && in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        const auto length = static_cast<std::size_t>(in.gcount());
        std::size_t sent = 0;
        while (sent < length) {
            ssize_t n = 0;
            const auto rc = session.until_done(deadline, [&] {
                n = libssh2_sftp_write(handle, buffer.data() + sent, length - sent);
                return n < 0 ? static_cast<int>(n) : 0;
            });
            if (!rc) throw timed_out();
            if (n < 0) {
                result.error = "cannot write " + remote_path + ": " + sftp_error(sftp, session);
                failed = true;
                break;
            }
            sent += static_cast<std::size_t>(n);
            result.bytes += static_cast<std::uint64_t>(n);
        }
    }
    if (!failed && in.bad()) {
        result.error = "cannot read " + local_path;
        failed = true;
    }
    if (!failed) {
        LIBSSH2_SFTP_ATTRIBUTES attributes{};
        attributes.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
        attributes.permissions = static_cast<unsigned long>(mode & 07777);
        const auto rc =
            session.until_done(deadline, [&] { return libssh2_sftp_fsetstat(handle, &attributes); });
        if (!rc) throw timed_out();
        if (*rc != 0) {
            result.error = "cannot set the mode of " + remote_path + ": " + sftp_error(sftp, session);
            failed = true;
        }
    }
    const auto closed = session.until_done(deadline, [&] { return libssh2_sftp_close_handle(handle); });
    if (!closed) throw timed_out();
    if (!failed && *closed != 0) {
        result.error = "cannot write " + remote_path + ": " + sftp_error(sftp, session);
        failed = true;
    }
    if (failed) remove_partial();
    return result;
}

}  // namespace pdctl::exec::detail

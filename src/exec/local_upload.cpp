// LocalExecutor::upload: the simulated cluster's nodes are this machine, so a transfer is a chunked copy
// with the same contract as SFTP (exact path, 0600 until complete, partial file removed on failure).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "pdctl/exec/local_executor.hpp"
#include "unique_fd.hpp"

namespace pdctl::exec {
namespace {

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const auto n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

TransferResult LocalExecutor::upload(const config::Node& node, const std::string& local_path,
                                     const std::string& remote_path, int mode, std::chrono::milliseconds) {
    TransferResult result;
    const auto fail = [&](const std::string& what) {
        result.error = node.name + ": " + what + ": " + std::strerror(errno);
        return result;
    };
    detail::UniqueFd in(::open(local_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0) return fail("cannot read " + local_path);
    detail::UniqueFd out(::open(remote_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (out.get() < 0) return fail("cannot create " + remote_path);

    std::vector<char> buffer(256 * 1024);
    bool ok = true;
    std::string what;
    while (ok) {
        const auto n = ::read(in.get(), buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) break;
        if (n < 0) {
            ok = false;
            what = "cannot read " + local_path;
        } else if (!write_all(out.get(), buffer.data(), static_cast<std::size_t>(n))) {
            ok = false;
            what = "cannot write " + remote_path;
        } else {
            result.bytes += static_cast<std::uint64_t>(n);
        }
    }
    if (ok && ::fchmod(out.get(), static_cast<mode_t>(mode & 07777)) != 0) {
        ok = false;
        what = "cannot set the mode of " + remote_path;
    }
    if (ok && ::close(out.release()) != 0) {
        ok = false;
        what = "cannot write " + remote_path;
    }
    if (!ok) {
        const int saved = errno;
        ::unlink(remote_path.c_str());
        errno = saved;
        return fail(what);
    }
    return result;
}

}  // namespace pdctl::exec

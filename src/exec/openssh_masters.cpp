// The per-user directory of the masters that outlive a run, and closing them (`pdctl ssh close`).
#include "pdctl/exec/openssh_masters.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "openssh_mux.hpp"
#include "pdctl/util/sha256.hpp"
#include "pdctl/util/text_file.hpp"

namespace pdctl::exec {
namespace {

// OpenSSH binds a master's socket under a temporary name (the path plus 17 characters) before it
// links it into place, and sun_path holds 107 bytes: the directory must leave room for both.
constexpr std::size_t kSocketPathLimit = 107;
constexpr std::size_t kNameLength = 16;
constexpr std::size_t kOpenSshTempSuffix = 17;

constexpr std::chrono::seconds kAnswerWait{2};

}  // namespace

std::chrono::seconds parse_ssh_persist(const std::string& value) {
    const auto refuse = [&value] {
        return std::invalid_argument("PDCTL_SSH_PERSIST=" + value +
                                     ": not a duration (seconds, or with a unit: 90s, 5m, 1h; 0 ends the SSH "
                                     "masters with each run)");
    };
    const auto digits = std::min(value.find_first_not_of("0123456789"), value.size());
    if (digits == 0 || digits > 7 || value.size() - digits > 1) throw refuse();
    const long long number = std::stoll(value.substr(0, digits));
    if (digits == value.size() || value[digits] == 's') return std::chrono::seconds(number);
    if (value[digits] == 'm') return std::chrono::minutes(number);
    if (value[digits] == 'h') return std::chrono::hours(number);
    throw refuse();
}

std::string default_control_dir() {
    return "/tmp/pdctl-ssh-" + std::to_string(::geteuid());
}

std::string control_dir_from_environment() {
    const char* configured = std::getenv("PDCTL_SSH_CONTROL_DIR");
    return configured && *configured ? configured : default_control_dir();
}

void prepare_control_dir(const std::string& dir) {
    const auto refuse = [&dir](const std::string& why) {
        return std::runtime_error(fmt::format("SSH control directory {}: {}", dir, why));
    };
    if (dir.empty() || dir.front() != '/') throw refuse("must be an absolute path");
    if (dir.size() + 1 + kNameLength + std::strlen(".sock") + kOpenSshTempSuffix > kSocketPathLimit)
        throw refuse(
            fmt::format("too long for a socket path (at most {} characters; set PDCTL_SSH_CONTROL_DIR "
                        "to a shorter one)",
                        kSocketPathLimit - 1 - kNameLength - std::strlen(".sock") - kOpenSshTempSuffix));
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw refuse(std::string("cannot create it: ") + std::strerror(errno));
    struct stat info {};
    if (::lstat(dir.c_str(), &info) != 0)
        throw refuse(std::string("cannot read it: ") + std::strerror(errno));
    // Whoever can reach a master's socket can run commands on the node as the operator.
    if (S_ISLNK(info.st_mode))
        throw refuse(
            "is a symbolic link; pdctl keeps its SSH connections only in a directory of its own "
            "(remove the link, or set PDCTL_SSH_CONTROL_DIR)");
    if (!S_ISDIR(info.st_mode)) throw refuse("is not a directory (remove it, or set PDCTL_SSH_CONTROL_DIR)");
    if (info.st_uid != ::geteuid())
        throw refuse(
            fmt::format("belongs to uid {}, not to you (uid {}): its sockets would be another "
                        "user's (set PDCTL_SSH_CONTROL_DIR)",
                        info.st_uid, ::geteuid()));
    if ((info.st_mode & S_ISVTX) != 0 && (info.st_mode & 077) != 0)
        throw refuse(
            fmt::format("is a shared directory (mode {:04o}); set PDCTL_SSH_CONTROL_DIR to a "
                        "directory of your own",
                        info.st_mode & 07777));
    if ((info.st_mode & 077) != 0)
        throw refuse(
            fmt::format("has mode {:04o}; other users could reach your SSH connections through it "
                        "(chmod 700 {})",
                        info.st_mode & 07777, dir));
}

std::string master_name(const std::string& connection) {
    return util::sha256_hex(connection).substr(0, kNameLength);
}

std::vector<ClosedMaster> close_masters_in(const std::string& dir) {
    std::vector<ClosedMaster> closed;
    std::error_code missing;
    if (!std::filesystem::is_directory(dir, missing)) return closed;
    prepare_control_dir(dir);
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const auto& path = entry.path();
        if (path.extension() != ".sock") continue;
        auto base = path;
        base.replace_extension();
        ClosedMaster master;
        master.destination = util::read_text_file(base.string() + ".dest");
        while (!master.destination.empty() && master.destination.back() == '\n')
            master.destination.pop_back();
        if (master.destination.empty()) master.destination = path.filename().string();
        const auto deadline = std::chrono::steady_clock::now() + kAnswerWait;
        master.was_running = detail::terminate_master(path.string(), deadline);
        // A master that agreed unlinks its socket itself; a dead one's socket is only a file.
        std::error_code ignored;
        if (!master.was_running) std::filesystem::remove(path, ignored);
        std::filesystem::remove(base.string() + ".log", ignored);
        std::filesystem::remove(base.string() + ".dest", ignored);
        closed.push_back(std::move(master));
    }
    // What masters that ended by themselves (idle) left: their log and destination, not their lock,
    // which another run may hold right now.
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        auto base = entry.path();
        if (base.extension() != ".log" && base.extension() != ".dest") continue;
        base.replace_extension();
        std::error_code ignored;
        if (!std::filesystem::exists(base.string() + ".sock", ignored))
            std::filesystem::remove(entry.path(), ignored);
    }
    return closed;
}

}  // namespace pdctl::exec

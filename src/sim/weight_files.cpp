#include "sim/weight_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace pdsim {
namespace {

// Reads the whole file through a 4 MiB buffer; false if it could not be opened or read.
bool read_through(const std::filesystem::path& path, std::vector<char>& buffer, std::uint64_t& bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    bool ok = true;
    for (;;) {
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got == 0) break;
        if (got < 0) {
            ok = false;
            break;
        }
        bytes += static_cast<std::uint64_t>(got);
    }
    ::close(fd);
    return ok;
}

}  // namespace

WeightRead read_weight_files(const std::string& model_path) {
    namespace fs = std::filesystem;
    WeightRead result;
    std::error_code error;
    if (model_path.empty() || !fs::is_directory(model_path, error)) return result;
    result.found = true;
    // Sorted, as a loader walks its index: the same order every start.
    std::vector<fs::path> files;
    for (fs::recursive_directory_iterator
             it(model_path, fs::directory_options::follow_directory_symlink, error),
         end;
         !error && it != end; it.increment(error)) {
        if (it->is_regular_file(error)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    std::vector<char> buffer(std::size_t{4} << 20);
    const auto began = Clock::now();
    for (const auto& file : files) {
        if (!read_through(file, buffer, result.bytes)) {
            result.error = file.string();
            break;
        }
        ++result.files;
    }
    result.elapsed = std::chrono::duration_cast<Millis>(Clock::now() - began);
    return result;
}

}  // namespace pdsim

#include "pdctl/config/file_source.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace pdctl::config {

std::string FileSource::resolve(const std::string& relative_to, const std::string& path) const {
    // Plain path arithmetic, no normalisation: `..` through a symlinked directory must mean what
    // the filesystem says, and `~` stays literal (it only means something to a shell).
    const std::filesystem::path target(path);
    if (target.is_absolute()) return path;
    const auto directory = std::filesystem::path(relative_to).parent_path();
    if (directory.empty()) return path;
    return (directory / target).string();
}

std::optional<std::string> DiskFileSource::read(const std::string& path) const {
    std::error_code error;
    // An ifstream opens a directory without complaint on Linux; reading it then fails silently.
    if (std::filesystem::is_directory(path, error)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return content.str();
}

std::optional<std::string> MemoryFileSource::read(const std::string& path) const {
    const auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
}

}  // namespace pdctl::config

#pragma once
// Where config files are read from: the disk, or the profile embedded in the binary.
// Keeps the loader pure and lets tests feed files from memory.

#include <map>
#include <optional>
#include <string>

namespace pdctl::config {

class FileSource {
  public:
    virtual ~FileSource() = default;
    // The file's content, or nullopt if it does not exist / cannot be read.
    virtual std::optional<std::string> read(const std::string& path) const = 0;
    // Resolves `path` relative to the directory of `relative_to` (unless absolute).
    virtual std::string resolve(const std::string& relative_to, const std::string& path) const;
};

class DiskFileSource : public FileSource {
  public:
    std::optional<std::string> read(const std::string& path) const override;
};

// Files held in memory, keyed by path. Used for the embedded profile and in tests.
class MemoryFileSource : public FileSource {
  public:
    explicit MemoryFileSource(std::map<std::string, std::string> files) : files_(std::move(files)) {}
    std::optional<std::string> read(const std::string& path) const override;

  private:
    std::map<std::string, std::string> files_;
};

}  // namespace pdctl::config

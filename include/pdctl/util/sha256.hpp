#pragma once
// SHA-256 with OpenSSL's libcrypto (already linked for libssh2), as lowercase hex like sha256sum prints.

#include <atomic>
#include <optional>
#include <string>
#include <string_view>

namespace pdctl::util {

std::string sha256_hex(std::string_view data);

// Streams the file in chunks, so a multi-GiB wheel or image archive is never held in memory.
// nullopt when it cannot be read; `error` then says why. A set `stop` ends the reading at the next
// chunk (nullopt, "stopped"): a push that is interrupted does not wait for a 100 GiB file.
std::optional<std::string> sha256_file_hex(const std::string& path, std::string* error = nullptr,
                                           const std::atomic<bool>* stop = nullptr);

}  // namespace pdctl::util

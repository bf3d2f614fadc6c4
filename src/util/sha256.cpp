#include "pdctl/util/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace pdctl::util {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::string to_hex(const unsigned char* digest, unsigned length) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(std::size_t{length} * 2);
    for (unsigned i = 0; i < length; ++i) {
        hex += kDigits[digest[i] >> 4];
        hex += kDigits[digest[i] & 0xf];
    }
    return hex;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned length = 0;
    EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
    return to_hex(digest.data(), length);
}

std::optional<std::string> sha256_file_hex(const std::string& path, std::string* error,
                                           const std::atomic<bool>* stop) {
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) {
        if (error) *error = "is a directory";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (error) *error = std::strerror(errno);
        return std::nullopt;
    }
    DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
        if (error) *error = "OpenSSL cannot compute SHA-256";
        return std::nullopt;
    }
    std::vector<char> buffer(1 << 20);
    while (in) {
        if (stop && stop->load()) {
            if (error) *error = "stopped";
            return std::nullopt;
        }
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        const auto count = static_cast<std::size_t>(in.gcount());
        if (count > 0) EVP_DigestUpdate(context.get(), buffer.data(), count);
    }
    if (in.bad()) {
        if (error) *error = "read error";
        return std::nullopt;
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned length = 0;
    EVP_DigestFinal_ex(context.get(), digest.data(), &length);
    return to_hex(digest.data(), length);
}

}  // namespace pdctl::util

#include "pdctl/exec/known_hosts.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

#include "pdctl/exec/ssh_config.hpp"

namespace pdctl::exec {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decode_char(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// `|1|salt|hash`: HMAC-SHA1 of the name keyed with the salt (HashKnownHosts yes).
bool hashed_entry_matches(std::string_view entry, const std::string& name) {
    const auto bar = entry.find('|', 3);
    if (entry.rfind("|1|", 0) != 0 || bar == std::string_view::npos) return false;
    const auto salt = base64_decode(entry.substr(3, bar - 3));
    const auto hash = base64_decode(entry.substr(bar + 1));
    if (!salt || !hash) return false;
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (HMAC(EVP_sha1(), salt->data(), static_cast<int>(salt->size()),
             reinterpret_cast<const unsigned char*>(name.data()), name.size(), digest.data(),
             &length) == nullptr)
        return false;
    return std::string_view(reinterpret_cast<const char*>(digest.data()), length) == *hash;
}

std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> items;
    std::istringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) items.push_back(item);
    return items;
}

std::mutex& append_mutex() {
    static std::mutex mutex;
    return mutex;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                           static_cast<unsigned char>(bytes[i + 2]);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (i < bytes.size()) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    bool padding = false;
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '=') {
            padding = true;
            continue;
        }
        const int value = decode_char(c);
        if (value < 0 || padding) return std::nullopt;
        buffer = (buffer << 6) | static_cast<unsigned>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buffer >> bits) & 0xff);
        }
    }
    return out;
}

std::string sha256_fingerprint(std::string_view key_blob) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(key_blob.data(), key_blob.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
        return "SHA256:?";
    std::string encoded =
        base64_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), length));
    while (!encoded.empty() && encoded.back() == '=') encoded.pop_back();  // OpenSSH drops the padding
    return "SHA256:" + encoded;
}

std::string known_hosts_name(const std::string& host, int port) {
    return port == 22 ? host : "[" + host + "]:" + std::to_string(port);
}

KnownHostsTrust known_hosts_trust(std::string_view text, const std::string& host, int port) {
    KnownHostsTrust trust;
    const std::string name = known_hosts_name(host, port);
    std::istringstream lines{std::string(text)};
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string first, hosts;
        fields >> first;
        if (first.empty() || first[0] == '#') continue;
        const bool authority = first == "@cert-authority";
        if (first[0] == '@') {
            if (!authority) continue;  // @revoked
            fields >> hosts;
        } else {
            hosts = first;
        }
        const bool matches = hosts.rfind("|1|", 0) == 0 ? hashed_entry_matches(hosts, name)
                                                        : ssh_host_patterns_match(split_commas(hosts), name);
        if (!matches) continue;
        (authority ? trust.certificate_authority : trust.key) = true;
    }
    return trust;
}

std::string known_hosts_line(const std::string& host, int port, const std::string& key_type,
                             std::string_view key_blob) {
    return known_hosts_name(host, port) + " " + key_type + " " + base64_encode(key_blob) + "\n";
}

std::string append_known_host(const std::string& path, const std::string& line) {
    std::lock_guard lock(append_mutex());
    const auto dir = std::filesystem::path(path).parent_path();
    if (!dir.empty() && !std::filesystem::exists(dir)) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) return "cannot create " + dir.string() + ": " + ec.message();
        ::chmod(dir.c_str(), 0700);
    }
    const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return "cannot open " + path + ": " + std::strerror(errno);
    std::string text = line;
    struct stat info {};
    if (::fstat(fd, &info) == 0 && info.st_size > 0) {
        char last = '\n';
        if (::pread(fd, &last, 1, info.st_size - 1) == 1 && last != '\n') text.insert(0, "\n");
    }
    const ssize_t written = ::write(fd, text.data(), text.size());
    const int saved = errno;
    ::close(fd);
    if (written != static_cast<ssize_t>(text.size()))
        return "cannot write " + path + ": " + std::strerror(written < 0 ? saved : EIO);
    return {};
}

}  // namespace pdctl::exec

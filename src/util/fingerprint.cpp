#include "pdctl/util/fingerprint.hpp"

#include <fmt/format.h>

namespace pdctl::util {

std::uint64_t fnv1a64(std::string_view data) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : data) {
        hash ^= c;
        hash *= 1099511628211ULL;
    }
    return hash;
}

std::string short_fingerprint(std::string_view data) {
    return fmt::format("{:012x}", fnv1a64(data) & 0xffffffffffffULL);
}

}  // namespace pdctl::util

#pragma once
// Sizes as people read them: "512 B", "4.6 GiB".

#include <cstdint>
#include <string>

namespace pdctl::util {

std::string format_bytes(std::uint64_t bytes);

}  // namespace pdctl::util

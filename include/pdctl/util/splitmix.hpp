#pragma once
// splitmix64: a small, well-mixed generator that gives the same numbers on every machine (the standard
// distributions do not), for prompts and arrival times that a seed reproduces.

#include <cstdint>

namespace pdctl::util {

inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace pdctl::util

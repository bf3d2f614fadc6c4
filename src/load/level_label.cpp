#include "pdctl/load/level_label.hpp"

#include <fmt/format.h>

namespace pdctl::load {

std::string level_label(int concurrency, std::optional<double> rate) {
    return rate ? fmt::format("{:g}/s", *rate) : fmt::format("c={}", concurrency);
}

}  // namespace pdctl::load

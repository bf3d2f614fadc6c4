#include "pdctl/util/wall_clock.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <ctime>

namespace pdctl::util {
namespace {

template <class Unit>
long long since_epoch_now() {
    return std::chrono::duration_cast<Unit>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

long long epoch_ms_now() {
    return since_epoch_now<std::chrono::milliseconds>();
}

long long epoch_seconds_now() {
    return since_epoch_now<std::chrono::seconds>();
}

double epoch_seconds_exact_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string utc_text(long long epoch_ms) {
    // fmt::gmtime of a time_t: a time_point would be formatted in local time by fmt 9.
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(static_cast<std::time_t>(epoch_ms / 1000)));
}

std::string utc_text_ms(long long epoch_ms) {
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z", fmt::gmtime(static_cast<std::time_t>(epoch_ms / 1000)),
                       epoch_ms % 1000);
}

}  // namespace pdctl::util

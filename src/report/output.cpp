#include "pdctl/report/output.hpp"

#include <atomic>
#include <cerrno>

namespace pdctl::report {
namespace {

std::atomic<bool> reader_gone{false};

}  // namespace

void write_text(std::FILE* out, std::string_view text) noexcept {
    bool failed = !text.empty() && std::fwrite(text.data(), 1, text.size(), out) != text.size();
    failed = std::fflush(out) != 0 || failed;
    if (failed && errno == EPIPE) reader_gone = true;
    std::clearerr(out);  // a later write may succeed (e.g. a terminal that came back)
}

bool reader_closed_output() noexcept {
    return reader_gone;
}

}  // namespace pdctl::report

#include "pdctl/report/output.hpp"

namespace pdctl::report {

void write_text(std::FILE* out, std::string_view text) noexcept {
    if (!text.empty()) std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
    std::clearerr(out);  // a later write may succeed (e.g. a terminal that came back)
}

}  // namespace pdctl::report

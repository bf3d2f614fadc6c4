// libFuzzer target: the start-up phase classifier (runtime::classify) and the log time parser over the
// tail of a unit's log, which is whatever the program on the node printed. The first byte picks the
// role kind (the same line means different things for SGLang and the router); the rest is split into
// lines like the engine splits a `logs --tail` answer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/runtime/startup_phase.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pdctl;
    if (size == 0) return 0;
    constexpr config::RoleKind kKinds[] = {config::RoleKind::Sglang, config::RoleKind::Router,
                                           config::RoleKind::MooncakeMaster, config::RoleKind::Generic};
    const auto kind = kKinds[data[0] % 4];
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        lines.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    const auto result = runtime::classify(lines, kind);
    (void)runtime::phase_id(result.phase);
    (void)runtime::phase_label(result.phase);
    for (const auto& line : lines) (void)runtime::parse_log_time(line, 2025);
    return 0;
}

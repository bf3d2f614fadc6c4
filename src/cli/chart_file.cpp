#include "chart_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

void write_chart_file(const std::string& path, const std::string& content, const std::string& what) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out)
        throw Failure(ExitCode::kUsage,
                      fmt::format("--{}: cannot write {}: {}", what, path, std::strerror(errno)));
}

}  // namespace pdctl::cli

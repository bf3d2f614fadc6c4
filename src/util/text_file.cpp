#include "pdctl/util/text_file.hpp"

#include <fstream>
#include <sstream>

namespace pdctl::util {

std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace pdctl::util

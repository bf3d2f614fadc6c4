#pragma once
// A small local file read whole: ssh's stderr logs, known_hosts. Empty when it cannot be read (the
// callers treat a missing file as an empty one, as OpenSSH does).

#include <string>

namespace pdctl::util {

std::string read_text_file(const std::string& path);

}  // namespace pdctl::util

#pragma once
// --svg FILE / --html FILE of the verbs that draw (timeline, bench): the file written whole, or a usage
// error naming the flag and why it could not be.

#include <string>

namespace pdctl::cli {

// `what`: the flag without its dashes, "svg" or "html".
void write_chart_file(const std::string& path, const std::string& content, const std::string& what);

}  // namespace pdctl::cli

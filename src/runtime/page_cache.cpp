#include "pdctl/runtime/page_cache.hpp"

#include <sstream>

#include "embedded/runtime_scripts.hpp"
#include "tagged_lines.hpp"

namespace pdctl::runtime {

exec::Command prewarm_command(const std::vector<std::string>& dirs, int readers) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::prewarm), "pdctl-prewarm", std::to_string(readers)};
    command.argv.insert(command.argv.end(), dirs.begin(), dirs.end());
    // Reading hundreds of GiB from a network file system takes long; the start does not wait past this.
    command.timeout = std::chrono::minutes(30);
    return command;
}

NodePrewarm parse_prewarm(const std::string& output) {
    NodePrewarm prewarm;
    detail::for_each_tagged_line(output, [&prewarm](const std::string& kind, std::istringstream& words) {
        if (kind == "mem") {
            words >> prewarm.mem_total >> prewarm.mem_available;
        } else if (kind == "dir") {
            PrewarmedDir dir;
            std::string state, resident;
            words >> dir.dir >> state >> dir.files >> dir.bytes >> resident >> dir.seconds;
            dir.present = state == "present";
            try {
                dir.resident = resident == "-" ? -1 : std::stoll(resident);
            } catch (const std::exception&) {
                dir.resident = -1;
            }
            prewarm.dirs.push_back(std::move(dir));
        }
    });
    return prewarm;
}

}  // namespace pdctl::runtime

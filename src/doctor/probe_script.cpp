// The doctor's probe: one fixed POSIX sh script, src/doctor/scripts/probe.sh (see probe.hpp for its
// output format); every request is an argument.

#include "embedded/doctor_scripts.hpp"
#include "pdctl/doctor/probe.hpp"

namespace pdctl::doctor {

const std::string& probe_script() {
    static const std::string script(scripts::probe);
    return script;
}

exec::Command probe_command(const ProbeRequest& request) {
    exec::Command command;
    command.argv = {"sh", "-c", probe_script(), "pdctl-probe"};
    if (request.gpu) command.argv.push_back("--gpu");
    for (const auto& cli : request.clis) {
        command.argv.push_back("--cli");
        command.argv.push_back(cli);
    }
    for (const auto& image : request.images) {
        command.argv.push_back("--image");
        command.argv.push_back(image.cli);
        command.argv.push_back(image.image);
    }
    for (const auto& path : request.disk_paths) {
        command.argv.push_back("--df");
        command.argv.push_back(path);
    }
    if (request.listeners) command.argv.push_back("--listeners");
    for (const auto& program : request.programs) {
        if (program.cli.empty()) {
            command.argv.insert(command.argv.end(), {"--program", program.name});
        } else {
            command.argv.insert(command.argv.end(),
                                {"--image-program", program.cli, program.image, program.name});
        }
    }
    // Each bounded step may take 15 s; a node answering later than this is reported as such.
    command.timeout = std::chrono::seconds(45);
    return command;
}

}  // namespace pdctl::doctor

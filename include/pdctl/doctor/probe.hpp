#pragma once
// The one fixed shell script the doctor runs on every node, and how it is asked. The script text never
// changes with the config: every user value (container CLI, image, path) reaches it as a positional
// parameter, quoted by util::join_command like any other argv. It prints one fact per line, fields
// separated by tabs (parse_probe_output in facts.hpp reads them):
//
//   probe 1 · kernel R · memlock L · peermem 0|1 · ib-class 0|1 · ib-device D · ib-port D P STATE
//   net IF OPERSTATE FLAGS · gpu-query RC|missing · gpu LINE · apps-query RC · app LINE
//   cli CLI ok ROOT | cli CLI missing | cli CLI failing ERROR · image CLI IMAGE ok ID | missing ERROR
//   df PATH AVAIL_KIB MOUNT · addr-query ok|missing · addr IF IP · listen-query ok|missing
//   listen LOCAL:PORT PROCESS · end
//
// sysfs is read under ${PDCTL_SYSFS_ROOT:-/sys}: production reads /sys; the tests point it at a fake
// tree on the test hosts (the variable exists for tests only).

#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::doctor {

struct ProbeRequest {
    bool gpu = false;               // run nvidia-smi
    std::vector<std::string> clis;  // container CLIs: present, daemon answering, storage root + its df
    struct Image {
        std::string cli;
        std::string image;
    };
    std::vector<Image> images;            // `<cli> image inspect --format {{.Id}} IMAGE`
    std::vector<std::string> disk_paths;  // df -Pk of the path (or its nearest existing parent)
    bool listeners = false;               // `ss -Htlnp`: the listening TCP sockets and their processes
    struct Program {
        std::string cli;  // empty: on the host (`command -v`); else inside `image` (`cli run --rm`)
        std::string image;
        std::string name;
    };
    std::vector<Program> programs;  // found on PATH or not
};

// The script text (fixed).
const std::string& probe_script();
// `sh -c SCRIPT pdctl-probe ARGS...`, with a timeout that covers the script's own bounded steps.
exec::Command probe_command(const ProbeRequest& request);

}  // namespace pdctl::doctor

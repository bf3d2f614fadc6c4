#pragma once
// `pdctl start --take-over`: stopping what pdctl did not start (runtime/scripts/foreign_stop.sh). A
// container is stopped, never removed, its log kept in NODE_DIR/previous/takeover-NAME.log; a process
// gets SIGTERM, then SIGKILL after `grace_seconds`.

#include <string>

#include "pdctl/exec/command.hpp"

namespace pdctl::runtime {

exec::Command foreign_container_stop_command(const std::string& node_dir, const std::string& cli,
                                             const std::string& id, const std::string& name,
                                             int grace_seconds);
exec::Command foreign_process_stop_command(const std::string& node_dir, int pid, int grace_seconds);

}  // namespace pdctl::runtime

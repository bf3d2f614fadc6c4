#pragma once
// The `docker` runtime (docker, podman, or any CLI with the same verbs): one labelled container per
// unit. The labels carry cluster, role, rank, node and config fingerprint, so the nodes themselves
// are the state store.

#include <map>
#include <string>
#include <vector>

#include "pdctl/runtime/runtime.hpp"

namespace pdctl::runtime {

class ContainerRuntime : public Runtime {
  public:
    ContainerRuntime(RuntimeSpec spec, std::string node_dir)
        : spec_(std::move(spec)), dir_(std::move(node_dir)) {}
    exec::Command start(const UnitSpec& unit) const override;
    exec::Command stop(const std::string& unit_name) const override;
    std::string describe_stop(const std::string& unit_name) const override;
    exec::Command logs(const std::string& unit_name, int tail_lines) const override;
    exec::Command log_activity(const std::string& unit_name, int tail_lines) const override;
    LogActivity parse_log_activity(const std::string& output) const override;
    exec::Command python_stack(const std::string& unit_name,
                               const std::vector<std::string>& py_spy) const override;
    exec::Command inspect(const std::string& cluster) const override;
    std::vector<UnitState> parse_inspect(const std::string& output) const override;
    std::optional<exec::Command> rename(const std::string& from, const std::string& to) const override;

  private:
    RuntimeSpec spec_;
    std::string dir_;
};

// The image ID each of `images` names on a node now (`CLI image inspect`), one command for all.
exec::Command image_ids_command(const std::string& cli, const std::vector<std::string>& images);
// image -> ID ("" for an image the node does not have), from image_ids_command's output.
std::map<std::string, std::string> parse_image_ids(const std::string& output);

}  // namespace pdctl::runtime

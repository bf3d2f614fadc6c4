#pragma once
// `pdctl ssh close`: which OpenSSH masters it ended and which dead ones' sockets it removed, for people
// and as one JSON document.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/exec/openssh_masters.hpp"

namespace pdctl::report {

std::string render_closed_masters_text(const std::string& dir, const std::vector<exec::ClosedMaster>& closed);
nlohmann::json closed_masters_to_json(const std::string& dir, const std::vector<exec::ClosedMaster>& closed);

}  // namespace pdctl::report

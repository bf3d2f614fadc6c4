#pragma once
// `pdctl diff`: what runs against what the config says, per group. What runs is read from the nodes:
// each unit's fingerprint (its `pdctl.config` label) and, for containers, the ID of the image it runs;
// what it was started with is the kept config (ops/config_history.hpp) whose plan has those
// fingerprints, newest run first. The `files:` are read from the nodes by their sha256.

#include <map>
#include <string>
#include <vector>

#include "pdctl/engine/router_membership_drift.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/plan_diff.hpp"

namespace pdctl::ops {

struct GroupDrift {
    plan::GroupDiff diff;
    // The run whose kept config the group runs from: "20261207T..-ab12cd (config 1a2b3c4d5e6f)"; empty
    // for a group added, or one whose fingerprints no kept config has (`unexplained`).
    std::string running_from;
    std::string running_config_id;  // that config's ID (config_store)
    bool unexplained = false;       // it runs from a config pdctl did not keep: the fields cannot be named
    int units_running = 0;
    int units_wanted = 0;
    // Containers: nodes where the image's tag now names another image than the one the unit runs
    // ("n3: runs sha256:aa.., the tag is now sha256:bb..").
    std::vector<std::string> image_moved;
    // A router with a worker API: the workers it lists against the config's (its fingerprint leaves
    // them out: they change at run time). `workers_unread` says why they could not be read.
    engine::MembershipDrift workers;
    std::string workers_unread;

    bool differs() const;
};

struct FileDrift {
    std::string source;
    std::string dest;
    std::vector<std::string> differs;  // nodes holding other content
    std::vector<std::string> missing;  // nodes without it
};

struct DiffResult {
    std::string cluster;
    std::vector<GroupDrift> groups;                  // in plan order, then the removed ones
    std::vector<FileDrift> files;                    // only the files that differ somewhere
    std::map<std::string, std::string> unreachable;  // node -> why
    std::string journal_source;                      // where the kept configs were looked up
    bool differs() const;
};

DiffResult diff_deployment(const Deployment& deployment);

}  // namespace pdctl::ops

#include "pdctl/ops/slurm_allocation_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "pdctl/exec/local_executor.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

config::Node this_machine() {
    config::Node here;
    here.name = "localhost";
    here.address = "127.0.0.1";
    return here;
}

std::string scontrol(const std::vector<std::string>& words) {
    exec::Command query;
    query.argv = {"scontrol", "--oneliner"};
    query.argv.insert(query.argv.end(), words.begin(), words.end());
    query.timeout = std::chrono::seconds(30);
    exec::LocalExecutor local;
    const auto answer = local.run(this_machine(), query);
    if (!answer.ok())
        throw std::runtime_error("`" + util::join(query.argv, " ") + "` failed: " +
                                 (answer.timed_out
                                      ? std::string("timed out")
                                      : util::first_line(answer.err.empty() ? answer.out : answer.err)));
    return answer.out;
}

// `scontrol show job ID`'s NodeList= (its allocated nodes; "(null)" while it is pending).
std::string job_nodelist(const std::string& job_id) {
    for (const auto& word : util::split(scontrol({"show", "job", job_id}), ' '))
        if (word.rfind("NodeList=", 0) == 0 && word != "NodeList=(null)")
            return util::first_line(word.substr(9));
    throw std::runtime_error("SLURM job " + job_id + " ($SLURM_JOB_ID) holds no nodes");
}

}  // namespace

config::SlurmAllocation read_slurm_allocation() {
    config::SlurmAllocation allocation;
    allocation.job_id = environment("SLURM_JOB_ID");
    allocation.nodelist = environment("SLURM_JOB_NODELIST");
    if (allocation.job_id.empty())
        throw std::runtime_error("this shell is in no SLURM allocation ($SLURM_JOB_ID is not set)");
    // Outside the allocation (status or stop from another shell) its id is enough: SLURM knows the rest.
    if (allocation.nodelist.empty()) allocation.nodelist = job_nodelist(allocation.job_id);
    std::vector<std::string> names;
    try {
        names = config::expand_hostlist(allocation.nodelist);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error("cannot read $SLURM_JOB_NODELIST: " + std::string(e.what()));
    }
    // Node names need not resolve on this machine (nor be what the nodes answer HTTP on): SLURM's
    // NodeAddr is where its own daemons reach them.
    const auto addresses = config::parse_node_addresses(scontrol({"show", "node", allocation.nodelist}));
    for (const auto& name : names) {
        const auto found = std::find_if(addresses.begin(), addresses.end(),
                                        [&](const config::AllocatedNode& node) { return node.name == name; });
        if (found == addresses.end())
            throw std::runtime_error("scontrol gives no NodeAddr for " + name + " of " + allocation.nodelist);
        allocation.nodes.push_back(*found);
    }
    return allocation;
}

}  // namespace pdctl::ops

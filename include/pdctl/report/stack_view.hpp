#pragma once
// `pdctl stack`'s output: each group's ranks folded by where their Python stacks are (the innermost
// frame of every process's main thread), the odd ones out named first ("rank 2 on n3 is in
// `_create_buffers (...)` while ranks 0,1,3 are in `broadcast_pyobj (...)`"), then one full dump per
// fold; or JSON. Pure: the dumps in, text out.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/ops/stack.hpp"
#include "pdctl/runtime/py_spy_dump.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::report {

using ops::RankDump;

struct StackFold {
    std::vector<std::string> places;  // runtime::top_places
    std::vector<const RankDump*> ranks;
};

// A stage's dumps that worked, folded by places; biggest fold first (ties: lowest rank first).
std::vector<StackFold> fold_stacks(const std::vector<const RankDump*>& dumps);

// "rank 2 on n3 is in `X` while ranks 0,1,3 are in `Y`", one per fold outside the biggest when that
// one is unique and has two ranks or more; empty otherwise.
std::vector<std::string> odd_ones_out(const std::vector<StackFold>& folds);

std::string render_stack_text(const std::vector<RankDump>& dumps);
nlohmann::json stack_to_json(const std::vector<RankDump>& dumps);

}  // namespace pdctl::report

#pragma once
// Writing progress to the operator's stream. A closed pipe (`pdctl start | head`) or a full disk
// must not end a run half-way: pdctl ignores SIGPIPE, and these writes drop their text on failure
// instead of throwing (fmt::print would) — the run goes on, cleans up on failure as usual, and its
// journal still records every event.

#include <cstdio>
#include <string_view>

namespace pdctl::report {

void write_text(std::FILE* out, std::string_view text) noexcept;

// Whether a write_text found its reader gone (EPIPE): the verb's output was lost, though the verb went
// on. pdctl then ends with exit 141 where it would have ended with 0.
bool reader_closed_output() noexcept;

}  // namespace pdctl::report

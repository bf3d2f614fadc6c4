#pragma once
// Reads what a load client needs from one answer (or streamed chunk) of SGLang's native POST /generate,
// meta_info's token counts, without parsing the text around it. SGLang streams by default with
// the whole text and every output id so far in every chunk ({"text", "output_ids", "meta_info"}, in that
// order): parsing each chunk whole costs as much as the answer so far, the square of the answer in all.
// Here meta_info is found by its key from the end of the chunk and only that object is read, so a chunk
// costs the size of its meta_info, whatever came before. Pure.

#include <optional>
#include <string_view>

namespace pdctl::load {

struct ChunkMeta {
    // -1: meta_info did not have it as an integer.
    int completion_tokens = -1;  // the tokens of the answer so far
    int prompt_tokens = -1;      // the prompt as the server counted it
    int cached_tokens = -1;      // of those, the ones its prefix cache served
};

// meta_info's counts; nullopt when the chunk has no "meta_info" key whose value is a well-formed object
// (then the caller parses the chunk whole, or counts it as one token).
std::optional<ChunkMeta> read_chunk_meta(std::string_view chunk);

// Whether the JSON object's first key is `key` ({"error": ...}: SGLang's and the router's error
// events have it as their only key). Looks at the start only.
bool first_key_is(std::string_view json, std::string_view key);

// Where the value of the object key `key` starts, searching from the end; npos: nowhere. A key that
// occurs only inside a string value (an answer's text quoting JSON) is never taken for one.
std::size_t find_key_from_end(std::string_view json, std::string_view key);

}  // namespace pdctl::load

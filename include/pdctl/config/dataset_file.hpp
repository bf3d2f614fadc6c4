#pragma once
// A prompt dataset (`pdctl bench --dataset FILE.jsonl`): real prompts to send as text. One JSON
// object a line; blank lines are skipped, keys not named here are ignored (datasets carry ids and
// metadata). Two layouts, mixed freely:
//
//   {"text": "Summarise this ...", "output_tokens": 200}        output_tokens optional
//   {"conversations": [{"from": "human", "value": "..."},       ShareGPT; "conversation" also read
//                      {"from": "gpt", "value": "..."}, ...]}
//
// A conversation gives its first turn from "human" (or "user") as the prompt, and the turn right
// after it, when that is an answer ("gpt" or "assistant"), for the output length: the prompt and
// answer pair sglang.bench_serving takes from ShareGPT. Every mistake is reported with file:line, as in
// the bench file.
//
// pdctl has no tokenizer, so lengths are estimated (estimate_tokens): ceil(ASCII bytes / 4) + one
// token per non-ASCII character (about four characters of English a token for BPE vocabularies,
// about one token a CJK character). The estimate only filters and sizes answers; the input length a
// bench reports is the server's own count (meta_info.prompt_tokens). Conversations are filtered as
// bench_serving filtered ShareGPT (its classic rule, vLLM's too): a pair is dropped when the prompt or
// the output is under 4 tokens, the prompt over 1024 or prompt + output over 2048 (the limits are
// DatasetFilter's, 0 turns a limit off); one with no answer is dropped unless a fixed output length
// is given. A "text" line is the user's own prompt and is never dropped.

#include <string>
#include <string_view>
#include <vector>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/model.hpp"

namespace pdctl::config {

struct DatasetFilter {
    int fixed_output_tokens = 0;   // every prompt's output length (as --sharegpt-output-len); 0: the file's
    int min_tokens = 4;            // a conversation's prompt or output shorter than this is dropped
    int max_prompt_tokens = 1024;  // 0: no limit
    int max_total_tokens = 2048;   // prompt + output; 0: no limit
};

struct DatasetPrompt {
    std::string text;
    // max_new_tokens: the line's output_tokens, the answer's estimated length, or the fixed length;
    // 0: none said (a "text" line without it): the bench row's output.
    int output_tokens = 0;
    int estimated_prompt_tokens = 0;
    SourceLocation where;
};

struct DatasetFile {
    std::string path;
    std::vector<DatasetPrompt> prompts;  // in the file's order
    int dropped_too_short = 0;
    int dropped_too_long = 0;
    int dropped_no_answer = 0;  // a conversation with no human turn, or no answer after it
};

// ceil(ASCII bytes / 4) + the non-ASCII characters of UTF-8 `text` (above).
int estimate_tokens(std::string_view text);

// Throws ConfigError with the mistakes found (at most 20 lines named, then how many more), and when
// no prompt is left.
DatasetFile load_dataset_file(const std::string& path, const FileSource& files,
                              const DatasetFilter& filter = {});

}  // namespace pdctl::config

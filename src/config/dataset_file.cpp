#include "pdctl/config/dataset_file.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include "pdctl/config/diagnostics.hpp"

namespace pdctl::config {
namespace {

using Json = nlohmann::json;

constexpr int kMaxOutputTokens = 10'000'000;
constexpr std::size_t kMostLinesNamed = 20;

const char* const kLayoutHint =
    R"(one JSON object a line: {"text": "...", "output_tokens": N} or {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}]})";

bool is_prompt_turn(const std::string& from) {
    return from == "human" || from == "user";
}
bool is_answer_turn(const std::string& from) {
    return from == "gpt" || from == "assistant";
}

// Collects a file's mistakes, naming the first lines in full and counting the rest.
class DatasetErrors {
  public:
    explicit DatasetErrors(std::string path) : path_(std::move(path)) {}
    void at(int line, int column, const std::string& key_path, const std::string& message,
            const std::string& hint = {}) {
        if (line != last_line_) {
            last_line_ = line;
            ++lines_;
        }
        if (lines_ <= static_cast<int>(kMostLinesNamed))
            diags_.error({path_, line, column}, key_path, message, hint);
    }
    void file(const std::string& message, const std::string& hint = {}) {
        diags_.error({path_}, "", message, hint);
    }
    [[noreturn]] void raise() {
        if (lines_ > static_cast<int>(kMostLinesNamed))
            diags_.error(
                {path_}, "",
                std::to_string(lines_ - static_cast<int>(kMostLinesNamed)) + " more lines with mistakes");
        throw ConfigError(diags_.items());
    }
    bool empty() const { return diags_.empty(); }

  private:
    std::string path_;
    Diagnostics diags_;
    int last_line_ = 0;
    int lines_ = 0;
};

// A prompt from one line before filtering; nullopt when the line was wrong (reported) or a
// conversation had no prompt and answer pair (`incomplete`).
struct LinePrompt {
    std::string text;
    int output_tokens = 0;
    bool from_conversation = false;
    bool has_answer = false;
};

std::optional<int> read_output_tokens(const Json& object, int line, DatasetErrors& errors) {
    const auto it = object.find("output_tokens");
    if (it == object.end()) return 0;
    if (!it->is_number_integer() || it->get<long long>() < 1 || it->get<long long>() > kMaxOutputTokens) {
        errors.at(
            line, 0, "output_tokens",
            "must be an integer between 1 and " + std::to_string(kMaxOutputTokens) + ", got " + it->dump());
        return std::nullopt;
    }
    return static_cast<int>(it->get<long long>());
}

std::optional<LinePrompt> read_text_line(const Json& object, int line, DatasetErrors& errors) {
    const Json& text = object.at("text");
    const auto output = read_output_tokens(object, line, errors);
    if (!text.is_string()) {
        errors.at(line, 0, "text", std::string("expected a string, got ") + text.type_name());
        return std::nullopt;
    }
    if (text.get_ref<const std::string&>().empty()) {
        errors.at(line, 0, "text", "empty prompt");
        return std::nullopt;
    }
    if (!output) return std::nullopt;
    return LinePrompt{text.get<std::string>(), *output, false, *output > 0};
}

// The first human turn and the answer right after it; `incomplete` when there is no such turn.
std::optional<LinePrompt> read_conversation_line(const Json& turns, const std::string& key, int line,
                                                 DatasetErrors& errors, bool& incomplete) {
    if (!turns.is_array()) {
        errors.at(line, 0, key, std::string("expected a list of turns, got ") + turns.type_name(),
                  R"(e.g. [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}])");
        return std::nullopt;
    }
    bool valid = true;
    for (std::size_t i = 0; i < turns.size(); ++i) {
        const std::string path = key + "[" + std::to_string(i) + "]";
        const Json& turn = turns[i];
        if (!turn.is_object()) {
            errors.at(line, 0, path,
                      std::string("expected {\"from\": ..., \"value\": ...}, got ") + turn.type_name());
            valid = false;
            continue;
        }
        for (const char* field : {"from", "value"}) {
            const auto it = turn.find(field);
            if (it == turn.end()) {
                errors.at(line, 0, path, std::string("missing required key `") + field + "`");
                valid = false;
            } else if (!it->is_string()) {
                errors.at(line, 0, path + "." + field,
                          std::string("expected a string, got ") + it->type_name());
                valid = false;
            }
        }
    }
    if (!valid) return std::nullopt;
    for (std::size_t i = 0; i < turns.size(); ++i) {
        if (!is_prompt_turn(turns[i]["from"].get<std::string>())) continue;
        LinePrompt prompt{turns[i]["value"].get<std::string>(), 0, true, false};
        if (i + 1 < turns.size() && is_answer_turn(turns[i + 1]["from"].get<std::string>())) {
            prompt.has_answer = true;
            prompt.output_tokens = estimate_tokens(turns[i + 1]["value"].get_ref<const std::string&>());
        }
        if (prompt.text.empty()) break;
        return prompt;
    }
    incomplete = true;
    return std::nullopt;
}

// The message of a parse error without nlohmann's "[json.exception...] parse error at line 1, column
// N: " prefix (the line is the file's, the column is given apart).
std::string parse_message(const Json::parse_error& error) {
    const std::string what = error.what();
    const auto column = what.find("column ");
    const auto colon = what.find(": ", column == std::string::npos ? 0 : column);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

int estimate_tokens(std::string_view text) {
    int ascii = 0;
    int other = 0;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x80)
            ++ascii;
        else if ((byte & 0xC0) != 0x80)  // a lead byte, not a continuation: one character
            ++other;
    }
    return (ascii + 3) / 4 + other;
}

DatasetFile load_dataset_file(const std::string& path, const FileSource& files, const DatasetFilter& filter) {
    DatasetFile dataset;
    dataset.path = path;
    DatasetErrors errors(path);
    const auto content = files.read(path);
    if (!content) {
        errors.file("cannot read the dataset file");
        errors.raise();
    }
    std::size_t begin = 0;
    int line = 0;
    int records = 0;
    while (begin < content->size()) {
        auto end = content->find('\n', begin);
        if (end == std::string::npos) end = content->size();
        std::string_view text(content->data() + begin, end - begin);
        begin = end + 1;
        ++line;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
        ++records;
        Json object;
        try {
            object = Json::parse(text);
        } catch (const Json::parse_error& e) {
            errors.at(line, static_cast<int>(e.byte), "", "invalid JSON: " + parse_message(e), kLayoutHint);
            continue;
        }
        if (!object.is_object()) {
            errors.at(line, 0, "", std::string("expected a JSON object, got ") + object.type_name(),
                      kLayoutHint);
            continue;
        }
        const bool has_text = object.contains("text");
        const char* conversation_key = object.contains("conversations")  ? "conversations"
                                       : object.contains("conversation") ? "conversation"
                                                                         : nullptr;
        if (has_text == (conversation_key != nullptr)) {
            errors.at(line, 0, "",
                      has_text ? "`text` and `conversations` both given: one prompt a line"
                               : "expected a `text` or `conversations` key",
                      kLayoutHint);
            continue;
        }
        bool incomplete = false;
        auto prompt = has_text ? read_text_line(object, line, errors)
                               : read_conversation_line(object.at(conversation_key), conversation_key, line,
                                                        errors, incomplete);
        if (incomplete) {  // no human turn: nothing to send
            ++dataset.dropped_no_answer;
            continue;
        }
        if (!prompt) continue;
        if (filter.fixed_output_tokens > 0) prompt->output_tokens = filter.fixed_output_tokens;
        const int input = estimate_tokens(prompt->text);
        if (prompt->from_conversation) {
            if (!prompt->has_answer && filter.fixed_output_tokens <= 0) {
                ++dataset.dropped_no_answer;
                continue;
            }
            if (input < filter.min_tokens || prompt->output_tokens < filter.min_tokens) {
                ++dataset.dropped_too_short;
                continue;
            }
            if ((filter.max_prompt_tokens > 0 && input > filter.max_prompt_tokens) ||
                (filter.max_total_tokens > 0 && input + prompt->output_tokens > filter.max_total_tokens)) {
                ++dataset.dropped_too_long;
                continue;
            }
        }
        dataset.prompts.push_back({std::move(prompt->text), prompt->output_tokens, input, {path, line, 1}});
    }
    if (errors.empty() && dataset.prompts.empty())
        errors.file(
            records == 0 ? "no prompt: the file has no line"
                         : "no prompt left of " + std::to_string(records) +
                               " lines: " + std::to_string(dataset.dropped_too_short) + " too short, " +
                               std::to_string(dataset.dropped_too_long) + " too long, " +
                               std::to_string(dataset.dropped_no_answer) + " without a prompt and answer",
            "conversations are kept with prompt and output of at least " + std::to_string(filter.min_tokens) +
                " tokens, a prompt of at most " + std::to_string(filter.max_prompt_tokens) + " and " +
                std::to_string(filter.max_total_tokens) + " in all (estimated; 0: no limit)");
    if (!errors.empty()) errors.raise();
    return dataset;
}

}  // namespace pdctl::config

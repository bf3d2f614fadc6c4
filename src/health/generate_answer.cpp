#include "pdctl/health/generate_answer.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace pdctl::health {

GenerateAnswer read_generate_answer(int status, const std::string& body) {
    GenerateAnswer answer;
    // No exceptions: a router answering garbage is a failed check, not a crash of the verb.
    const auto parsed = nlohmann::json::parse(body, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object()) {
        const auto text = parsed.find("text");
        if (text != parsed.end() && text->is_string()) answer.text = text->get<std::string>();
    }
    if (status != 200)
        answer.error = fmt::format("HTTP {}: {}", status, body.substr(0, 300));
    else if (answer.text.empty())
        answer.error = "the answer has no text: " + body.substr(0, 300);
    return answer;
}

std::string generate_request(const std::string& prompt, int max_new_tokens) {
    const nlohmann::json body = {
        {"text", prompt}, {"sampling_params", {{"max_new_tokens", max_new_tokens}, {"ignore_eos", true}}}};
    return body.dump();
}

}  // namespace pdctl::health

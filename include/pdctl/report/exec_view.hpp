#pragma once
// `pdctl exec`'s output: identical output folded under the nodes that printed it (as `dshbak -c` and
// `clush -b` do), then each exit code with its nodes; or one JSON object per node.

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/ops/exec.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

using ops::ExecAnswer;

struct OutputGroup {
    std::vector<std::string> labels;  // in the answers' order
    std::string text;                 // stdout, then stderr, as printed
};

// The answers that ran (transport failures left out), folded by identical text, biggest group first
// (ties: first appearance).
std::vector<OutputGroup> group_outputs(const std::vector<ExecAnswer>& answers);

std::string render_exec_text(const std::vector<ExecAnswer>& answers);
// The last line of render_exec_text: each outcome with its nodes ("exit 0: n1–n7 · exit 4: n8"). What
// `exec --stream` prints after the lines it streamed.
std::string render_exec_outcomes(const std::vector<ExecAnswer>& answers);
nlohmann::json exec_to_json(const std::vector<ExecAnswer>& answers);

// `exec --stream`: each complete line as it arrives, prefixed with its node ("n3: ..."), as pdsh prints
// them; stdout lines on stdout, stderr lines on stderr. A line is printed whole or not at all, so the
// nodes' lines interleave but never mix.
class ExecLinePrinter : public ops::ExecStream {
  public:
    explicit ExecLinePrinter(const util::Redactor& redactor) : redactor_(redactor) {}
    void begin(const std::vector<std::string>& labels) override;
    void output(std::size_t target, bool error_stream, std::string_view chunk) override;
    // The command ended: a last line without its newline.
    void ended(std::size_t target) override;

  private:
    struct Pending {
        std::string label;
        std::string out, err;
    };
    void print(const std::string& label, bool error_stream, const std::string& line);

    const util::Redactor& redactor_;
    std::mutex mutex_;  // one line at a time
    std::vector<Pending> pending_;
};

}  // namespace pdctl::report

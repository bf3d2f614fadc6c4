#pragma once
// `pdctl push` output: one line per settled file as it happens ("n3  2/3  sent  /data/x.whl  1.0 GiB in
// 8.1 s (126 MiB/s)"), one line per node when it is done, a closing summary; or the same as JSON Lines.

#include <cstdint>
#include <cstdio>
#include <string>

#include "pdctl/ops/push.hpp"
#include "pdctl/push/pusher.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

class PushPrinter : public ops::PushView {
  public:
    PushPrinter(std::FILE* out, bool as_json, const util::Redactor& redactor)
        : out_(out), json_(as_json), redactor_(redactor) {}

    void begin(std::size_t files, std::size_t nodes, std::uint64_t bytes_at_most) override;
    void file_done(const std::string& node, const push::FileOutcome& file, std::size_t done,
                   std::size_t total) override;
    void node_done(const push::NodeOutcome& outcome) override;
    void end(const push::PushResult& result) override;
    std::string summary(const push::PushResult& result) const override;

  private:
    void emit(const std::string& line);

    std::FILE* out_;
    bool json_;
    const util::Redactor& redactor_;
};

}  // namespace pdctl::report

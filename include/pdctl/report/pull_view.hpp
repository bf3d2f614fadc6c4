#pragma once
// `pdctl pull` output: one line per node and image when it settles ("n3  1/1  pulled  IMAGE  id
// 3f2a9c1b7e4d  in 41.2s"), a "still pulling" line for long pulls, a node line when a node has several
// images, and a closing summary that names every failure and every node whose image ID differs; or the
// same as JSON Lines (pull_begin, pull_image, pull_progress, pull_node, pull_end).

#include <cstdio>
#include <string>

#include "pdctl/ops/pull.hpp"
#include "pdctl/pull/puller.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

class PullPrinter : public ops::PullView {
  public:
    PullPrinter(std::FILE* out, bool as_json, const util::Redactor& redactor)
        : out_(out), json_(as_json), redactor_(redactor) {}

    void begin(const std::vector<pull::NodeImages>& plan) override;
    void image_done(const std::string& node, const pull::ImageOutcome& image, std::size_t done,
                    std::size_t total) override;
    void node_done(const pull::NodeOutcome& outcome) override;
    void still_pulling(const std::string& node, const pull::ImageRef& image, pull::Duration elapsed) override;
    void end(const pull::PullResult& result) override;
    std::string summary(const pull::PullResult& result) const override;

  private:
    void emit(const std::string& line);

    std::FILE* out_;
    bool json_;
    const util::Redactor& redactor_;
};

// The closing lines as text (also what the journal records): "OK ..." or "FAIL ..." and the details.
std::vector<std::string> pull_summary_lines(const pull::PullResult& result);

}  // namespace pdctl::report

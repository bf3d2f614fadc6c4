#pragma once
// The bench's live line ("medium  c=4  37/40 done  0 failed  p50 e2e 3.21 s"): on stderr, and only on
// a terminal outside CI and --json, so stdout stays the report.

#include "context.hpp"
#include "pdctl/ops/bench.hpp"

namespace pdctl::cli {

class LiveLine {
  public:
    explicit LiveLine(const GlobalOptions& global);
    ~LiveLine();  // clears the line
    LiveLine(const LiveLine&) = delete;
    LiveLine& operator=(const LiveLine&) = delete;

    void show(const ops::BenchProgress& progress) const;
    void clear() const;

  private:
    bool wanted_ = false;
};

}  // namespace pdctl::cli

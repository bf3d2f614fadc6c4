#pragma once
// A bench file (`pdctl bench --file F`, docs/bench.md): the rows of a bench and, optionally, its load
// levels, so a team keeps the shapes its traffic has beside the cluster file. Every mistake is
// reported with file:line, as in the cluster file.
//
//   name: chat-and-rag
//   rows:
//     - {name: chat, input: 512, output: 256}
//     - {name: rag, input: 6000, output: 200}
//   concurrency: [1, 8, 32]
//   requests: 64

#include <string>
#include <vector>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/model.hpp"

namespace pdctl::config {

struct BenchFileRow {
    std::string name;
    int input_tokens = 0;
    int output_tokens = 0;
    SourceLocation where;
};

struct BenchFile {
    std::string path;
    std::string name;  // `name:`, else the file's name without .yaml
    std::vector<BenchFileRow> rows;
    // Optional; command-line flags win over them.
    std::vector<int> concurrency;
    int requests = 0;
    Duration duration{0};
    int warmup = -1;  // -1: not given
};

// Throws ConfigError with every problem found.
BenchFile load_bench_file(const std::string& path, const FileSource& files);

}  // namespace pdctl::config

#pragma once

namespace pdctl::cli {

// Parses the command line, runs the verb, and maps every error to a documented exit code.
int run(int argc, char** argv);

}  // namespace pdctl::cli

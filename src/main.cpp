#include "pdctl/cli/app.hpp"

int main(int argc, char** argv) {
    return pdctl::cli::run(argc, argv);
}

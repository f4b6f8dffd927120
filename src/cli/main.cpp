// The attune command line. Subcommands are registered in src/cli/commands.cpp.
#include <cstdio>

int main(int argc, char** argv) {
  std::puts("attune: under construction");
  return 0;
}

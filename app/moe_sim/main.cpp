// moe-sim: the headless front end of the MoE Pipeline Workbench core.
// Exit codes (DESIGN.md §6): 0 ok; 1 verification failed or deadlock diagnosed; 2 bad input,
// including input that asks for more memory than the machine has, and output that could not
// be written; 3 only for a bug.

#include <cstdio>
#include <iostream>
#include <new>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/out_of_memory.h"
#include "core/util/error.h"
#include "core/util/printable.h"
#include "core/util/temporary_files.h"

namespace {

// Enough for nlohmann::json's destructors to free the largest input a command accepts.
constexpr std::size_t kUnwindingReserveBytes = std::size_t{64} << 20;

// Every command's output is only as good as its last write: stdout on a full disk or a
// closed descriptor fails silently until it is flushed.
bool stdoutWritten() {
  std::cout.flush();
  const bool ok = std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  return ok;
}

int runCommand(CLI::App& app, int argc, char** argv, const int& exitCode) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help or the parse error
    return rc == 0 ? 0 : 2;
  } catch (const moe::InputError& e) {
    // The path and rule may quote the user's bytes (an unknown key, a file name).
    std::cerr << "error: " << moe::printable(e.path()) << ": " << moe::printable(e.rule(), true)
              << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    const char* what = moe::AllocationScope::innermost();
    std::cerr << "error: out of memory: " << (what ? what : "the command's working data")
              << " (the input asks for more memory than this process may have)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << moe::printable(e.what(), true) << "\n";
    return 3;
  }
  return exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  moesim::reserveMemoryForUnwinding(kUnwindingReserveBytes);
  moe::removeTemporaryFilesOnSignal();
  CLI::App app{"moe-sim: emulate an expert-parallel MoE layer on an Ascend 910B-class cluster"};
  app.require_subcommand(1);
  int exitCode = 0;
  for (const auto& setup : moesim::commandRegistry()) setup(app, exitCode);
  const int rc = runCommand(app, argc, argv, exitCode);
  if (!stdoutWritten()) {
    std::cerr << "error: cannot write standard output\n";
    return 2;
  }
  return rc;
}

// moe-sim: the headless front end of the MoE Pipeline Workbench core.
// Exit codes (DESIGN.md §6): 0 ok; 1 verification failed or deadlock diagnosed; 2 bad input,
// including input that asks for more memory than the machine has; 3 only for a bug.

#include <iostream>
#include <new>

#include "app/moe_sim/command_registry.h"
#include "core/util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"moe-sim: emulate an expert-parallel MoE layer on an Ascend 910B-class cluster"};
  app.require_subcommand(1);
  int exitCode = 0;
  for (const auto& setup : moesim::commandRegistry()) setup(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help or the parse error
    return rc == 0 ? 0 : 2;
  } catch (const moe::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    const char* what = moe::AllocationScope::innermost();
    std::cerr << "error: out of memory: " << (what ? what : "the run's working data")
              << " (shrink model.*, cluster.* or set payload to \"none\")\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
  return exitCode;
}

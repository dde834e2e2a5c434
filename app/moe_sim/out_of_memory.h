#pragma once
// Running out of memory must end in "error: out of memory: WHAT" and exit 2, whichever
// command it hits. The catch in main() is one half; the other is that unwinding to it must
// not allocate: nlohmann::json's destructor allocates a work stack, and a std::bad_alloc
// thrown inside a destructor terminates the process (SIGABRT). So a block is set aside at
// start-up and released on the first failed allocation, which then throws: the destructors
// that run while the exception unwinds allocate from the memory given back.

#include <cstddef>

namespace moesim {

// Sets `bytes` of address space aside (never touched, so it costs no resident memory) and
// installs the new-handler that gives it back.
void reserveMemoryForUnwinding(std::size_t bytes);

}  // namespace moesim

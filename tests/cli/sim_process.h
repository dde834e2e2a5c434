#pragma once
// Runs the real moe-sim binary as a user would: stdout captured, stderr through a file in
// `dir`, and the exit code. Shared by the CLI test files.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace moe::clitest {

struct SimResult {
  int exitCode = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
};

inline SimResult runMoeSim(const std::string& args, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path err = dir / "stderr.txt";
  const std::string cmd = std::string(MOE_SIM_PATH) + " " + args + " 2>'" + err.string() + "'";
  SimResult r;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

}  // namespace moe::clitest

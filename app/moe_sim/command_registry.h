#pragma once
// moe-sim's subcommands register themselves here, one file per subcommand, so adding a
// command never touches main.cpp. A command's callback sets exitCode (0 ok, 1 verification
// failed or deadlock); bad input is reported by throwing moe::InputError (exit 2).

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace moesim {

using CommandSetup = std::function<void(CLI::App& app, int& exitCode)>;

inline std::vector<CommandSetup>& commandRegistry() {
  static std::vector<CommandSetup> registry;
  return registry;
}

// For every path argument: '' would otherwise read as "not given" and fall back to the
// default, so `run ''` would run the built-in scenario without a word.
inline CLI::Validator nonEmptyPath() {
  return CLI::Validator(
      [](std::string& value) {
        return value.empty() ? std::string("names no file (an empty path)") : std::string();
      },
      "PATH");
}

struct RegisterCommand {
  explicit RegisterCommand(CommandSetup setup) { commandRegistry().push_back(std::move(setup)); }
};

}  // namespace moesim

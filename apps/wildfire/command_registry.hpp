// Each cmd_<name>.cpp registers its subcommand here at static-initialisation time, so main.cpp
// never changes when a command is added.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace wildfire::cli {

/// Adds one subcommand (options and callback) to `parent`: the top-level app, or the group
/// subcommand for names of the form "group/name" (e.g. "generate/pa" adds `wildfire generate pa`).
using command_setup = void (*)(CLI::App& parent);

struct registered_command {
  std::string name;
  command_setup setup;
};

/// All registered commands, in registration order.
std::vector<registered_command>& command_registry();

/// Registers `setup` under `name` ("info", or "group/name"); returns true so it can initialise a
/// static: `static const bool registered = register_command("info", &setup_info);`
bool register_command(std::string name, command_setup setup);

/// Description shown for a command group such as "generate".
std::string command_group_description(const std::string& group);

}  // namespace wildfire::cli

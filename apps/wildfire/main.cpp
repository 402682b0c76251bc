// wildfire: influence analysis on social networks. The subcommands live in cmd_<name>.cpp; this
// file parses, dispatches and turns every error into one line and a non-zero exit code.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <new>

#include <fmt/core.h>

#include "command_registry.hpp"
#include "wildfire/error.hpp"
#include "wildfire/version.hpp"

namespace wildfire::cli {

std::vector<registered_command>& command_registry() {
  static std::vector<registered_command> commands;
  return commands;
}

bool register_command(std::string name, command_setup setup) {
  command_registry().push_back({std::move(name), setup});
  return true;
}

std::string command_group_description(const std::string& group) {
  if (group == "generate") return "Generate graphs (preferential attachment, random spreading graphs)";
  return group;
}

}  // namespace wildfire::cli

int main(int argc, char** argv) {
  using namespace wildfire;
  CLI::App app{"wildfire: influence analysis on social networks (IMM, OPIM-C, adaptive seeding, "
               "graph generation) on CPU cores and NVIDIA GPUs"};
  app.set_version_flag("--version", fmt::format("wildfire {} (commit {})", version_string, git_commit));
  app.require_subcommand(1);
  auto& commands = cli::command_registry();
  std::sort(commands.begin(), commands.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<std::string, CLI::App*> groups;
  for (const auto& command : commands) {
    const auto slash = command.name.find('/');
    if (slash == std::string::npos) {
      command.setup(app);
      continue;
    }
    const std::string group = command.name.substr(0, slash);
    auto [it, inserted] = groups.try_emplace(group, nullptr);
    if (inserted) {
      it->second = app.add_subcommand(group, cli::command_group_description(group));
      it->second->require_subcommand(1);
    }
    command.setup(*it->second);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "wildfire: error: {}\n", e.what());
    return e.get_exit_code() != 0 ? e.get_exit_code() : 2;
  } catch (const error& e) {
    fmt::print(stderr, "wildfire: error: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "wildfire: error: out of host memory\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "wildfire: error: {}\n", e.what());
    return 1;
  }
  return 0;
}

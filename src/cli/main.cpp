// main.cpp — the `attune` command: registers the subcommands and holds the one error boundary.
//
// Exit codes: 0 success, 1 an attune::Error (bad spec, missing file, failed check, ...),
// 2 a command-line usage error reported by CLI11.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

#include "cli/cli_common.hpp"
#include "ir/error.hpp"

namespace {

int fail(const char* prefix, const std::string& message, int code) {
  std::cout.flush();  // what a command printed before failing comes first
  std::cerr << "attune: " << prefix << attune::cli::one_line(message) << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace attune::cli;
  CLI::App app{"attune: a tensor-kernel autotuner (specs -> schedules -> measured C kernels)", "attune"};
  app.set_version_flag("--version", std::string("attune ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  set_command_line(argc, argv);
  Action action;
  add_ops_command(app, action);
  add_lower_command(app, action);
  add_verify_command(app, action);
  add_map_command(app, action);
  add_tune_command(app, action);
  add_predict_command(app, action);
  add_db_commands(app, action);
  add_worker_command(app, action);
  add_libgen_command(app, action);
  add_space_stats_command(app, action);
  add_gpu_bundle_command(app, action);
  add_model_commands(app, action);
  add_train_policy_command(app, action);
  add_report_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports a misspelt command as "a subcommand is required"; name the word instead.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-')
      return fail("error: ", std::string("unknown command '") + argv[1] + "' (see attune --help)", 2);
    return fail("error: ", std::string(e.what()) + " (see attune --help)", 2);
  } catch (const attune::Error& e) {  // a check inside an option's parser
    return fail("error: ", e.what(), 1);
  }

  // The one boundary: whatever a command throws ends here as one line on stderr.
  try {
    return action ? action() : 0;
  } catch (const attune::Error& e) {
    return fail("error: ", e.what(), 1);
  } catch (const attune::InternalError& e) {
    return fail("internal error (a bug in attune): ", e.what(), 1);
  } catch (const std::bad_alloc&) {
    return fail("error: ", "out of memory", 1);
  } catch (const std::exception& e) {
    return fail("internal error (a bug in attune): ", e.what(), 1);
  }
}

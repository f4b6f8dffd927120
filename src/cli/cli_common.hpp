// cli_common.hpp — what every `attune` subcommand shares: how commands are registered, how
// arguments that may be files or inline text are read, and how numbers are shown to people.
//
// Commands do their work outside CLI11's parse: a subcommand's callback only chooses the action,
// and main() runs it inside the one error boundary (attune::Error -> "attune: error: ...", 1).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "db/db.hpp"
#include "hw/target.hpp"
#include "schedule/schedule.hpp"

namespace CLI {
class App;
}

namespace attune::cli {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kDefaultDb = "attune.db";

// The action of the parsed subcommand; returns the process exit code.
using Action = std::function<int()>;

// One per command group (cmd_*.cpp). Each adds its subcommands to `app` and, when one of them
// is parsed, stores what to run in `action`.
void add_ops_command(CLI::App& app, Action& action);
void add_lower_command(CLI::App& app, Action& action);
void add_verify_command(CLI::App& app, Action& action);
void add_map_command(CLI::App& app, Action& action);
void add_tune_command(CLI::App& app, Action& action);
void add_predict_command(CLI::App& app, Action& action);
void add_db_commands(CLI::App& app, Action& action);     // best, history, export, db copy
void add_worker_command(CLI::App& app, Action& action);  // cmd_worker.cpp
void add_libgen_command(CLI::App& app, Action& action);
void add_space_stats_command(CLI::App& app, Action& action);
void add_gpu_bundle_command(CLI::App& app, Action& action);  // cmd_gpu_bundle.cpp

// `attune lower` with --intrinsic/--mapping or a cuda target (cmd_lower_tensorize.cpp).
bool wants_tensorize(const std::string& target, const std::string& intrinsic, int mapping);
int run_lower_tensorized(const std::string& spec, const std::string& target, const std::string& intrinsic, int mapping,
                         bool code_only);
void add_train_policy_command(CLI::App& app, Action& action);  // cmd_train_policy.cpp (RL agent)
void add_model_commands(CLI::App& app, Action& action);        // cmd_model.cpp: import, run-model, tune-model
void add_report_command(CLI::App& app, Action& action);        // cmd_report.cpp: the HTML report

// The command line as typed (main() records it), arguments with spaces or quotes quoted: what
// reports and result files name as the command that produced them.
void set_command_line(int argc, char** argv);
const std::string& command_line();
// This run for the database's runs table: the command line, this attune, this machine.
RunInfo this_run();

// The text of `arg` when it is inline JSON (starts with '{' or '['), else the contents of the
// file it names. `what` names the option in errors ("--trace").
std::string json_text_or_file(const std::string& arg, const std::string& what);
// A schedule (schedule.hpp) from inline JSON or a file. A bare array of steps is accepted as
// shorthand for {"schema_version": 1, "steps": [...]}, the form people write by hand.
Schedule schedule_from_arg(const std::string& arg);

// What to hand load_target() for a --target value. Besides what load_target accepts (a name,
// an alias, a file), the CLI takes "KIND/NAME" ("cuda/nvidia-h200"), the way the docs name
// targets, and checks that NAME is a KIND target.
std::string target_arg(const std::string& arg);
Target load_target_arg(const std::string& arg);

// The memory limit of --max-memory ("" for the default, half of physical memory), checked
// against `op` before anything is allocated (runtime/memory_estimate.hpp). Throws Error.
void check_max_memory(const Op& op, const std::string& max_memory_arg);

// Messages from compilers and workers span lines; a report line must not.
std::string one_line(const std::string& text, std::size_t max_chars = 0);

// "1.234 ms", "56.7 us", "2.10 s".
std::string format_time(double seconds);
// "1:05" or "1:02:03"; "?" for a negative (unknown) duration.
std::string format_duration(double seconds);
// printf-style "%.*f".
std::string fixed(double x, int digits);

bool stderr_is_terminal();

// Writes `text` to `path` through a temporary file and a rename, so readers never see half.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace attune::cli

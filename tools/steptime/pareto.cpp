#include "commands.hpp"

namespace steptime::cli {

void add_pareto_command(CLI::App&) {}

}  // namespace steptime::cli

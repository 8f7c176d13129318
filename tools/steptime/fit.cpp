#include "commands.hpp"

namespace steptime::cli {

void add_fit_command(CLI::App&) {}

}  // namespace steptime::cli

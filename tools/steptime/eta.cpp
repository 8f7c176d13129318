#include "commands.hpp"

namespace steptime::cli {

void add_eta_command(CLI::App&) {}

}  // namespace steptime::cli

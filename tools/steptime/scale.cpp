#include "commands.hpp"

namespace steptime::cli {

void add_scale_command(CLI::App&) {}

}  // namespace steptime::cli

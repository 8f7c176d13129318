// The subcommands that live in files of their own: each registers itself on the app.
#pragma once

#include <CLI/CLI.hpp>

namespace steptime::cli {

void add_fit_command(CLI::App& app);     // fit.cpp:    regression models and PPP calibration from measurements
void add_scale_command(CLI::App& app);   // scale.cpp:  measured times from one GPU to another
void add_eta_command(CLI::App& app);     // eta.cpp:    remaining time of a running job from its log
void add_pareto_command(CLI::App& app);  // pareto.cpp: time/cost trade-offs and their Pareto set
void add_validate_command(CLI::App& app);  // validate.cpp: predictions against published measurements

}  // namespace steptime::cli

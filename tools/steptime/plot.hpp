// Scaling curves drawn by gnuplot, run as a child process with its script on stdin.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace steptime::cli {

struct curve {
    std::string label;
    std::vector<std::pair<double, double>> points;  // (workers, speedup)
};

// Throws "--plot needs gnuplot (Debian package gnuplot-nox)" when no gnuplot is on the PATH.
void require_gnuplot();

// Throws "--plot: cannot write FILE: reason" unless the file can be written (checked before any work).
void require_writable(const std::string& svg_file);

// The gnuplot script that draws speedup against workers (log2 axes), with the ideal line y = x; the
// title is two lines, the second smaller.
std::string speedup_script(const std::string& svg_file, const std::string& title, const std::string& subtitle,
                           const std::vector<curve>& curves);

// A point of a scatter plot, with a label written beside it (one word: no spaces or quotes).
struct labelled_point {
    double x = 0, y = 0;
    std::string label{};
};

struct scatter {
    std::string label{};
    std::vector<labelled_point> points{};
};

// The gnuplot script that draws cost against time to train (log axes where every value is positive), one
// colour per series, and each Pareto front (its (hours, dollars), fastest first) as a line through its points.
std::string tradeoff_script(const std::string& svg_file, const std::string& title, const std::string& subtitle,
                            const std::vector<scatter>& series,
                            const std::vector<std::vector<std::pair<double, double>>>& fronts);

// Runs gnuplot on the script; throws when it fails.
void run_gnuplot(const std::string& script, const std::string& svg_file);

}  // namespace steptime::cli

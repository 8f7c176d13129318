#include "plot.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <sys/wait.h>

#include <steptime/error.hpp>

namespace steptime::cli {
namespace {

// The first executable `name` on the PATH, as `command -v` finds it; empty if none.
std::string find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return {};
    const std::string_view dirs(path);
    for (std::size_t start = 0; start <= dirs.size();) {
        std::size_t end = dirs.find(':', start);
        if (end == std::string_view::npos) end = dirs.size();
        // Appended piecewise: g++ 12 at -O2 warns wrongly (-Wrestrict, PR 105329) on dir + "/" + name.
        std::string file(end == start ? std::string_view(".") : dirs.substr(start, end - start));
        file += '/';
        file.append(name);
        struct stat st {};
        if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(file.c_str(), X_OK) == 0) return file;
        start = end + 1;
    }
    return {};
}

// A gnuplot single-quoted string: no escapes inside, a quote doubled.
std::string gp_quote(std::string_view s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

// A POSIX shell single-quoted word.
std::string sh_quote(std::string_view s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Okabe and Ito's colour-blind-safe palette, without its yellow (too pale on white).
constexpr const char* colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255"};
constexpr int point_types[] = {7, 5, 9, 13, 11, 15, 4, 6};  // filled circle, square, triangles, diamond...

}  // namespace

void require_gnuplot() {
    if (find_on_path("gnuplot").empty()) throw invalid_argument("--plot needs gnuplot (Debian package gnuplot-nox)");
}

void require_writable(const std::string& svg_file) {
    struct stat st {};
    const bool existed = stat(svg_file.c_str(), &st) == 0;
    std::FILE* f = std::fopen(svg_file.c_str(), "a");  // "a": an existing file is left as it is
    if (f == nullptr) throw invalid_argument("--plot: cannot write " + svg_file + ": " + std::strerror(errno));
    std::fclose(f);
    if (!existed) std::remove(svg_file.c_str());
}

std::string speedup_script(const std::string& svg_file, const std::string& title, const std::string& subtitle,
                           const std::vector<curve>& curves) {
    double lo = 0, hi = 0, ylo = 1, yhi = 1;
    for (const auto& c : curves)
        for (const auto& [w, s] : c.points) {
            lo = lo == 0 ? w : std::min(lo, w);
            hi = std::max(hi, w);
            if (s > 0 && std::isfinite(s)) ylo = std::min(ylo, s), yhi = std::max(yhi, s);
        }
    if (lo == hi) lo /= 2, hi *= 2;  // one worker count: widen the axis around it
    // The y axis spans the curves and the ideal line, in powers of two labelled 1/4, 1/2, 1, 2, 4...
    const int kmin = static_cast<int>(std::floor(std::log2(std::min(ylo, lo)) + 1e-9));
    const int kmax = static_cast<int>(std::ceil(std::log2(std::max(yhi, hi)) - 1e-9));
    const int step = (kmax - kmin) / 10 + 1;

    std::ostringstream g;
    g.precision(17);
    g << "set terminal svg size 800,500 dynamic enhanced font 'sans,12' background rgb 'white'\n"
      << "set output " << gp_quote(svg_file) << "\n"
      << "set encoding utf8\n"
      << "set title " << gp_quote(title) << " . \"\\n\" . " << gp_quote(subtitle) << " noenhanced\n"
      << "set xlabel 'workers (GPUs)'\n"
      << "set ylabel 'speedup (x)'\n"
      << "set logscale x 2\n"
      << "set logscale y 2\n"
      << "set format x '%g'\n"
      << "set xrange [" << lo << ":" << hi << "]\n"
      << "set yrange [" << std::ldexp(1.0, kmin) / 1.06 << ":" << std::ldexp(1.0, kmax) * 1.06 << "]\n"  // ticks at both ends
      << "set ytics (";
    bool first = true;
    for (int k = kmin; k <= kmax; ++k) {
        if (k % step != 0) continue;
        const std::string label = k >= 0 ? std::to_string(1LL << k) : "1/" + std::to_string(1LL << -k);
        g << (first ? "" : ", ") << "'" << label << "' " << std::ldexp(1.0, k);
        first = false;
    }
    g << ")\n"
      << "set grid xtics ytics lc rgb '#d0d0d0' lw 1 dt 1\n"
      << "set border 3 lw 1\n"
      << "set tics nomirror\n"
      << "set key top left box opaque samplen 3 spacing 1.2\n"
      << "set linetype cycle 8\n";
    for (int i = 0; i < 8; ++i)
        g << "set linetype " << i + 1 << " lc rgb '" << colours[i] << "' lw 2 pt " << point_types[i] << " ps 0.9\n";
    for (std::size_t i = 0; i < curves.size(); ++i) {
        auto points = curves[i].points;
        std::sort(points.begin(), points.end());
        g << "$s" << i << " << EOD\n";
        for (const auto& [w, s] : points) g << w << " " << s << "\n";
        g << "EOD\n";
    }
    g << "set samples 200\n";
    g << "plot x with lines dt 2 lw 1.5 lc rgb '#808080' title 'ideal (speedup = workers)'";
    for (std::size_t i = 0; i < curves.size(); ++i)
        g << ", \\\n     $s" << i << " using 1:2 with linespoints lt " << i + 1 << " title " << gp_quote(curves[i].label)
          << " noenhanced";
    g << "\nunset output\n";
    return g.str();
}

std::string tradeoff_script(const std::string& svg_file, const std::string& title, const std::string& subtitle,
                            const std::vector<scatter>& series,
                            const std::vector<std::vector<std::pair<double, double>>>& fronts) {
    bool positive = true;
    for (const auto& s : series)
        for (const auto& p : s.points) positive = positive && p.x > 0 && p.y > 0;
    std::ostringstream g;
    g.precision(17);
    g << "set terminal svg size 800,600 dynamic enhanced font 'sans,12' background rgb 'white'\n"
      << "set output " << gp_quote(svg_file) << "\n"
      << "set encoding utf8\n"
      << "set title " << gp_quote(title) << " . \"\\n\" . " << gp_quote(subtitle) << " noenhanced\n"
      << "set xlabel 'time to train (hours)'\n"
      << "set ylabel 'cost (USD)'\n"
      << (positive ? "set logscale xy 10\n" : "")
      << "set format x '%g'\n"
      << "set format y '%g'\n"
      << "set grid xtics ytics lc rgb '#d0d0d0' lw 1 dt 1\n"
      << "set border 3 lw 1\n"
      << "set tics nomirror\n"
      << "set key below box samplen 3 spacing 1.2 maxrows 4\n"
      << "set linetype cycle 8\n";
    for (int i = 0; i < 8; ++i)
        g << "set linetype " << i + 1 << " lc rgb '" << colours[i] << "' lw 2 pt " << point_types[i] << " ps 0.9\n";
    for (std::size_t i = 0; i < series.size(); ++i) {
        g << "$s" << i << " << EOD\n";
        for (const auto& p : series[i].points) g << p.x << " " << p.y << " " << p.label << "\n";
        g << "EOD\n";
    }
    g << "$front << EOD\n";
    for (const auto& front : fronts) {  // a blank line between fronts breaks the line
        for (const auto& [x, y] : front) g << x << " " << y << "\n";
        g << "\n";
    }
    g << "EOD\n";
    g << "plot $front using 1:2 with linespoints lw 2 lc rgb '#808080' pt 6 ps 2 title 'Pareto-optimal'";
    for (std::size_t i = 0; i < series.size(); ++i)
        g << ", \\\n     $s" << i << " using 1:2 with points lt " << i + 1 << " title " << gp_quote(series[i].label)
          << " noenhanced, \\\n     $s" << i << " using 1:2:3 with labels offset char 0.9,0.6 font ',9' tc lt " << i + 1
          << " notitle noenhanced";
    g << "\nunset output\n";
    return g.str();
}

void run_gnuplot(const std::string& script, const std::string& svg_file) {
    const std::string gnuplot = find_on_path("gnuplot");
    if (gnuplot.empty()) require_gnuplot();
    // A gnuplot that dies early must not kill us with SIGPIPE: we report its exit status instead.
    const auto previous = std::signal(SIGPIPE, SIG_IGN);
    std::FILE* pipe = popen(sh_quote(gnuplot).c_str(), "w");
    if (pipe == nullptr) {
        std::signal(SIGPIPE, previous);
        throw error("--plot: cannot start " + gnuplot);
    }
    const bool written = std::fwrite(script.data(), 1, script.size(), pipe) == script.size();
    const int status = pclose(pipe);
    std::signal(SIGPIPE, previous);
    if (!written || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw error("--plot: gnuplot failed to draw " + svg_file + " (its messages are above)");
}

}  // namespace steptime::cli

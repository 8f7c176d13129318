// steptime/detail/csv.hpp: a strict CSV table for the measurement readers. A header row names the
// columns; every record has as many fields. Fields may be quoted (RFC 4180: "a, b" holds a comma, ""
// is a quote inside quotes; no line breaks inside a field). Blank lines and lines starting with '#'
// (comments) are skipped and fields are trimmed. Errors are parse_error "origin:line: ...", naming the
// column and what was expected.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "steptime/detail/text.hpp"
#include "steptime/error.hpp"

namespace steptime::detail {

class csv_table {
public:
    csv_table(std::string_view text, std::string origin) : origin_(std::move(origin)) {
        std::size_t line_no = 0;
        while (!text.empty()) {
            const auto eol = text.find('\n');
            const std::string_view line = text.substr(0, eol);
            text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
            ++line_no;
            if (trim(line).empty() || trim(line).starts_with('#')) continue;
            std::vector<std::string> fields = split(line, line_no);
            if (header_.empty()) {
                header_ = std::move(fields);
                header_line_ = line_no;
                continue;
            }
            if (fields.size() != header_.size())
                throw parse_error(where(line_no) + std::to_string(fields.size()) + " fields, expected " +
                                  std::to_string(header_.size()) + " as in the header");
            lines_.push_back(line_no);
            cells_.push_back(std::move(fields));
        }
        if (header_.empty()) throw parse_error(origin_ + ": empty, expected a header line naming the columns");
    }

    const std::string& origin() const { return origin_; }
    const std::vector<std::string>& header() const { return header_; }
    std::size_t header_line() const { return header_line_; }
    std::size_t rows() const { return cells_.size(); }
    std::size_t line(std::size_t row) const { return lines_[row]; }
    const std::vector<std::string>& record(std::size_t row) const { return cells_[row]; }
    std::string where(std::size_t line_no) const { return origin_ + ":" + std::to_string(line_no) + ": "; }

    std::optional<std::size_t> find(std::string_view column) const {
        for (std::size_t k = 0; k < header_.size(); ++k)
            if (header_[k] == column) return k;
        return std::nullopt;
    }
    // Throws unless the header has the column; `format` says what the header should look like.
    std::size_t column(std::string_view column, std::string_view format) const {
        if (const auto k = find(column)) return *k;
        std::string msg = origin_;
        msg += ": the header has no column '";
        msg += column;
        msg += "', expected ";
        msg += format;
        throw parse_error(msg);
    }

    std::string_view text(std::size_t row, std::size_t col) const { return cells_[row][col]; }

    parse_error bad(std::size_t row, std::size_t col, std::string_view expected) const {
        std::string msg = where(lines_[row]);
        msg += "column '";
        msg += header_[col];
        msg += "': '";
        msg += cells_[row][col];
        msg += "', expected ";
        msg += expected;
        return parse_error(msg);
    }

    // A finite number, at least `min` (and above it when `exclusive`).
    double number(std::size_t row, std::size_t col, double min, bool exclusive, std::string_view expected) const {
        const std::string_view s = text(row, col);
        double v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v < min ||
            (exclusive && v == min))
            throw bad(row, col, expected);
        return v;
    }
    double positive(std::size_t row, std::size_t col, std::string_view expected) const {
        return number(row, col, 0, true, expected);
    }
    std::int64_t integer(std::size_t row, std::size_t col, std::int64_t min, std::int64_t max,
                         std::string_view expected) const {
        const std::string_view s = text(row, col);
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || v < min || v > max)
            throw bad(row, col, expected);
        return v;
    }

private:
    std::vector<std::string> split(std::string_view line, std::size_t line_no) const {
        std::vector<std::string> fields;
        std::size_t k = 0;
        for (;;) {
            std::string field;
            while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
            if (k < line.size() && line[k] == '"') {
                for (++k;; ++k) {
                    if (k >= line.size()) throw parse_error(where(line_no) + "a quoted field has no closing quote");
                    if (line[k] != '"') {
                        field += line[k];
                    } else if (k + 1 < line.size() && line[k + 1] == '"') {
                        field += '"';
                        ++k;
                    } else {
                        break;
                    }
                }
                ++k;
                const auto next = line.find(',', k);
                if (!trim(line.substr(k, next - k)).empty())
                    throw parse_error(where(line_no) + "text after a quoted field, expected a comma");
                k = next;
            } else {
                const auto next = line.find(',', k);
                field = trim(line.substr(k, next - k));
                k = next;
            }
            fields.push_back(std::move(field));
            if (k == std::string_view::npos) return fields;
            ++k;
        }
    }

    std::string origin_;
    std::vector<std::string> header_;
    std::size_t header_line_ = 0;
    std::vector<std::size_t> lines_;
    std::vector<std::vector<std::string>> cells_;
};

}  // namespace steptime::detail

// steptime/units.hpp: the library's quantities. The only header that names Boost.Units.
#pragma once

#include <chrono>

#include <boost/units/base_dimension.hpp>
#include <boost/units/base_unit.hpp>
#include <boost/units/base_units/si/second.hpp>
#include <boost/units/cmath.hpp>
#include <boost/units/make_system.hpp>
#include <boost/units/physical_dimensions/frequency.hpp>
#include <boost/units/physical_dimensions/time.hpp>
#include <boost/units/quantity.hpp>
#include <boost/units/unit.hpp>

namespace steptime {
namespace units {

namespace bu = boost::units;

// Two base dimensions Boost.Units lacks as such: amounts of data and of arithmetic work.
struct data_base_dimension : bu::base_dimension<data_base_dimension, 7301> {};
struct work_base_dimension : bu::base_dimension<work_base_dimension, 7302> {};

struct byte_base_unit : bu::base_unit<byte_base_unit, data_base_dimension::dimension_type, 7311> {
    static const char* name() { return "byte"; }
    static const char* symbol() { return "B"; }
};
struct flop_base_unit : bu::base_unit<flop_base_unit, work_base_dimension::dimension_type, 7312> {
    static const char* name() { return "floating-point operation"; }
    static const char* symbol() { return "FLOP"; }
};

using system = bu::make_system<bu::si::second_base_unit, byte_base_unit, flop_base_unit>::type;

using time_unit = bu::unit<bu::time_dimension, system>;
using frequency_unit = bu::unit<bu::frequency_dimension, system>;
using data_unit = bu::unit<data_base_dimension::dimension_type, system>;
using work_unit = bu::unit<work_base_dimension::dimension_type, system>;
using dimensionless_unit = bu::unit<bu::dimensionless_type, system>;

inline constexpr time_unit second{};
inline constexpr data_unit byte{};
inline constexpr work_unit flop{};

}  // namespace units

using seconds = boost::units::quantity<units::time_unit>;
using bytes = boost::units::quantity<units::data_unit>;
using flops = boost::units::quantity<units::work_unit>;
using bytes_per_second = boost::units::quantity<decltype(units::byte / units::second)>;
using flops_per_second = boost::units::quantity<decltype(units::flop / units::second)>;
using hertz = boost::units::quantity<units::frequency_unit>;
using ratio = boost::units::quantity<units::dimensionless_unit>;

// Constructors from plain numbers, in the unit the name says.
constexpr seconds seconds_of(double v) { return v * units::second; }
constexpr seconds milliseconds_of(double v) { return v * 1e-3 * units::second; }
constexpr seconds microseconds_of(double v) { return v * 1e-6 * units::second; }
constexpr bytes bytes_of(double v) { return v * units::byte; }
constexpr flops flops_of(double v) { return v * units::flop; }
constexpr bytes_per_second bytes_per_second_of(double v) { return v * (units::byte / units::second); }
constexpr flops_per_second flops_per_second_of(double v) { return v * (units::flop / units::second); }
constexpr hertz megahertz_of(double v) { return v * 1e6 * units::frequency_unit{}; }
constexpr ratio ratio_of(double v) { return v * units::dimensionless_unit{}; }

// The one escape hatch: the value in the quantity's base unit (s, B, FLOP, B/s, FLOP/s, Hz).
template <class Unit>
constexpr double to_double(boost::units::quantity<Unit> q) { return q.value(); }

inline std::chrono::duration<double> to_chrono(seconds t) { return std::chrono::duration<double>(t.value()); }

}  // namespace steptime

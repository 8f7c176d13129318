// steptime/version.hpp
#pragma once

#define STEPTIME_VERSION_MAJOR 0
#define STEPTIME_VERSION_MINOR 9
#define STEPTIME_VERSION_PATCH 15
#define STEPTIME_VERSION_STRING "0.9.15"

namespace steptime {
inline constexpr const char* version = STEPTIME_VERSION_STRING;
}

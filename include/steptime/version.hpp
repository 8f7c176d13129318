// steptime/version.hpp
#pragma once

#define STEPTIME_VERSION_MAJOR 0
#define STEPTIME_VERSION_MINOR 9
#define STEPTIME_VERSION_PATCH 16
#define STEPTIME_VERSION_STRING "0.9.16"

namespace steptime {
inline constexpr const char* version = STEPTIME_VERSION_STRING;
}

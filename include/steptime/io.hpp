// steptime/io.hpp: file formats, on top of the library: PALEO JSON networks, device JSON, JSON reports.
// Needs nlohmann_json (Debian nlohmann-json3-dev).
#pragma once

#include "steptime/steptime.hpp"
#include "steptime/io/device_json.hpp"
#include "steptime/io/link_json.hpp"
#include "steptime/io/paleo_json.hpp"
#include "steptime/io/price_csv.hpp"
#include "steptime/io/report_json.hpp"
#include "steptime/io/calibration_json.hpp"
#include "steptime/io/published_csv.hpp"
#include "steptime/scale/wave_scaling.hpp"
#include "steptime/io/kernel_trace.hpp"
#include "steptime/eta.hpp"
#include "steptime/io/progress_log.hpp"

// steptime/steptime.hpp: the library without file formats (cheap to include). Wave scaling of measured
// kernels (scale/wave_scaling.hpp) and remaining time from logs (eta.hpp) come with their readers in
// steptime/io.hpp; each header also stands alone.
// File formats (PALEO JSON networks, device JSON, JSON reports) are in steptime/io.hpp.
#pragma once

#include "steptime/version.hpp"
#include "steptime/error.hpp"
#include "steptime/units.hpp"
#include "steptime/tensor.hpp"
#include "steptime/device.hpp"
#include "steptime/devices/catalog.hpp"
#include "steptime/ops/layer_op.hpp"
#include "steptime/graph/network.hpp"
#include "steptime/graph/bounds.hpp"
#include "steptime/cost/layer_time.hpp"
#include "steptime/cost/paleo_compat.hpp"
#include "steptime/cost/paleo.hpp"
#include "steptime/cost/roofline.hpp"
#include "steptime/cost/kernel.hpp"
#include "steptime/cost/calibration.hpp"
#include "steptime/estimate.hpp"
#include "steptime/phase_time.hpp"
#include "steptime/comm/link.hpp"
#include "steptime/comm/collectives.hpp"
#include "steptime/parallel/data_parallel.hpp"
#include "steptime/parallel/hybrid.hpp"
#include "steptime/parallel/model_parallel.hpp"
#include "steptime/parallel/pipeline_parallel.hpp"
#include "steptime/report.hpp"
#include "steptime/zoo/zoo.hpp"
#include "steptime/zoo/spec.hpp"
#include "steptime/training.hpp"
#include "steptime/pareto.hpp"

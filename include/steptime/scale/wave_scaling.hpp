// steptime/scale/wave_scaling.hpp: (being written)
#pragma once

// steptime/io/kernel_trace.hpp: (being written)
#pragma once

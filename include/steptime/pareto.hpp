// steptime/pareto.hpp: (being written)
#pragma once

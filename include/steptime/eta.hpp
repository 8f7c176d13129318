// steptime/eta.hpp: (being written)
#pragma once

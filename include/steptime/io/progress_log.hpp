// steptime/io/progress_log.hpp: (being written)
#pragma once

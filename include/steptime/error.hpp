// steptime/error.hpp: the exceptions the library throws.
#pragma once

#include <stdexcept>
#include <string>

namespace steptime {

// Base of every error steptime reports; the message names what was wrong and where.
struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A network that cannot be built: unknown parent, cycle, shape mismatch, bad layer parameter.
struct invalid_model : error {
    using error::error;
};

// A device spec that cannot be used: missing, non-positive or non-finite rates, unknown name.
struct invalid_device : error {
    using error::error;
};

// An operation or option the chosen cost model does not support.
struct unsupported_operation : error {
    using error::error;
};

// A malformed input file; the message starts with the file name.
struct parse_error : error {
    using error::error;
};

// A request outside what the library accepts (batch, PPP, precision...).
struct invalid_argument : error {
    using error::error;
};

}  // namespace steptime

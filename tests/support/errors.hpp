// Test support: what an expression throws.
#pragma once

#include <exception>
#include <string>
#include <typeinfo>

namespace test_support {

// The message of the E (or a subclass) that f throws; a marker starting with '<' when it throws
// something else or nothing, so that the caller's checks on the message fail.
template <class E, class F>
std::string message_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("<another exception type: ") + typeid(e).name() + "> " + e.what();
    }
    return "<nothing thrown>";
}

}  // namespace test_support

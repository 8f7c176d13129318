// Test support: what an expression throws (CHECK_ERROR needs doctest included first).
#pragma once

#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
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

// `expr` throws E whose message contains every listed part.
#define CHECK_ERROR(E, expr, ...)                                                           \
    do {                                                                                    \
        const std::string m_ = test_support::message_of<E>([&] { (void)(expr); });          \
        INFO("message: " << m_);                                                            \
        CHECK_MESSAGE(!m_.starts_with("<"), "expected " #E);                                \
        for (std::string_view part_ : std::initializer_list<std::string_view>{__VA_ARGS__}) \
            CHECK_MESSAGE(m_.find(part_) != std::string::npos, "message lacks: " << part_); \
    } while (0)

// steptime/io/json_document.hpp: a small JSON document (a device, a link, a calibration profile) parsed
// strictly. nlohmann_json keeps the last of a key given twice in one object; here that is an error, as a
// silently dropped value would be a silently wrong prediction. A number beyond a double's range, which
// nlohmann_json reports without a position, is named by its field. Files may hold // and /* */ comments.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "steptime/error.hpp"

namespace steptime::io {

namespace json_document_detail {
// nlohmann_json's message without its "[json.exception.parse_error.101] " prefix.
inline std::string message(const nlohmann::json::exception& e) {
    const std::string what = e.what();
    const std::size_t end = what.find("] ");
    return end == std::string::npos ? what : what.substr(end + 2);
}
}  // namespace json_document_detail

// Throws parse_error starting with `origin` for malformed JSON and for a key repeated in one object.
inline nlohmann::json parse_json_document(const std::string& text, const std::string& origin) {
    using event_t = nlohmann::json::parse_event_t;
    // The open objects and arrays, outermost first: the key each was reached by ("" in an array or at the
    // top) and, for objects, the keys read in it so far. `key` is the last key read.
    struct level {
        std::string key;
        std::set<std::string> members{};
    };
    std::vector<level> open;
    std::string key;
    const auto field = [&] {
        std::string path;
        for (std::size_t i = 1; i < open.size(); ++i)
            if (!open[i].key.empty()) path += open[i].key + ".";
        return path + key;
    };
    const auto track = [&](int depth, event_t event, nlohmann::json& parsed) {
        // nlohmann_json's depths: an object or array starts and ends at its own depth (0 at the top); its keys
        // come at that depth plus one.
        const auto d = static_cast<std::size_t>(depth);
        switch (event) {
            case event_t::object_start:
            case event_t::array_start:
                open.resize(d);
                open.push_back({d > 0 && !key.empty() ? key : std::string{}});
                key.clear();
                break;
            case event_t::key:
                key = parsed.get<std::string>();
                if (!open[d - 1].members.insert(key).second)
                    throw parse_error(origin + ": duplicate key '" + field() + "' (each field may be given once)");
                break;
            case event_t::object_end:
            case event_t::array_end:
                open.resize(d);
                key.clear();
                break;
            case event_t::value: break;
        }
        return true;
    };
    try {
        return nlohmann::json::parse(text, track, true, /*ignore_comments=*/true);
    } catch (const nlohmann::json::out_of_range& e) {
        throw parse_error(origin + ": malformed JSON in field '" + field() + "': " + json_document_detail::message(e) +
                          " (beyond the range of a double)");
    } catch (const nlohmann::json::exception& e) {
        throw parse_error(origin + ": malformed JSON: " + json_document_detail::message(e));
    }
}

}  // namespace steptime::io

#include "core/util/json_strict.h"

#include <set>
#include <vector>

#include "core/util/error.h"

namespace moe {
namespace {

using nlohmann::json;

// One open object or array while parsing, for naming a duplicate key by its path.
// Only the frame's own name is stored, and the full path is built only for an error:
// building it per key cost O(depth^2) on a deeply nested (hostile) file.
struct Frame {
  bool object = false;
  std::string name;  // the key it sits under, or "[]" inside an array; "" at the top
  std::string lastKey;
  std::set<std::string> keys;
};

std::string pathOf(const std::vector<Frame>& stack, const std::string& key) {
  std::string path;
  auto append = [&path](const std::string& name) {
    if (name.empty()) return;  // the top-level object
    if (name == "[]" || path.empty())
      path += name;
    else
      path += "." + name;
  };
  for (const Frame& f : stack) append(f.name);
  append(key);
  return path;
}

// "line L, column C" of the 1-based byte offset nlohmann reports.
std::string lineColumn(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// nlohmann's message without its "[json.exception...] " tag and without the "last read:
// '...'" excerpt, which would echo the file's bytes.
std::string describe(const json::exception& e) {
  std::string what = e.what();
  if (const auto pos = what.find("] ");
      what.rfind("[json.exception", 0) == 0 && pos != std::string::npos)
    what = what.substr(pos + 2);
  if (const auto pos = what.find("; last read"); pos != std::string::npos) what.erase(pos);
  if (const auto pos = what.find("number overflow parsing"); pos != std::string::npos)
    what = "a number overflows a double";
  // "parse error at line 1, column 2: syntax error ..." repeats what we print ourselves.
  if (const auto pos = what.find(": syntax error"); pos != std::string::npos)
    what = what.substr(pos + 2);
  return what;
}

}  // namespace

json parseJsonStrict(const std::string& text, const std::string& file) {
  std::vector<Frame> stack;
  auto childName = [&] {
    if (stack.empty()) return std::string();
    return stack.back().object ? stack.back().lastKey : std::string("[]");
  };
  // Refuses the object or array that would open level kMaxJsonDepth + 1, before it is built.
  auto open = [&](bool object) {
    if (stack.size() >= kMaxJsonDepth)
      throw InputError(pathOf(stack, childName()), "nested " + std::to_string(stack.size() + 1) +
                                                       " levels deep in " + file +
                                                       " (objects and arrays may nest at most " +
                                                       std::to_string(kMaxJsonDepth) + " levels)");
    stack.push_back(Frame{object, childName(), {}, {}});
  };
  json::parser_callback_t onEvent = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        open(true);
        break;
      case json::parse_event_t::array_start:
        open(false);
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& f = stack.back();
        f.lastKey = parsed.get<std::string>();
        // A NUL would cut the key short wherever it meets a C string ("nic\u0000gbps" read
        // as "nic"), so the rule broken would be named for another field.
        if (f.lastKey.find('\0') != std::string::npos)
          throw InputError(pathOf(stack, f.lastKey),
                           "key in " + file + " contains a NUL character (\\u0000)");
        if (!f.keys.insert(f.lastKey).second)
          throw InputError(pathOf(stack, f.lastKey),
                           "duplicate key in " + file + " (each key may appear once per object)");
        break;
      }
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    return json::parse(text, onEvent);
  } catch (const json::parse_error& e) {
    throw InputError(file, lineColumn(text, e.byte) + ": not valid JSON: " + describe(e));
  } catch (const json::out_of_range& e) {
    // Number overflow: nlohmann reports no position for it.
    throw InputError(file, "not usable JSON: " + describe(e));
  }
}

}  // namespace moe

// The kinds of fill child a folder's machine.json "child"."kind" may name: one list for the writer
// (FillChild::describe(), child/child_*.cpp) and every reader (the folder schema, history,
// compare, report, check, --resume), so that no reader refuses a folder wmbench wrote (issue 30:
// history refused every `--command` folder). Folders made before the key ran the native child.
#pragma once

#include <string>
#include <vector>

namespace wmb {

inline constexpr const char* kNativeChild = "native";    // wmbench-fill (child/child_native.cpp)
inline constexpr const char* kPythonChild = "python";    // wmbench_fill.py (child/child_python.cpp)
inline constexpr const char* kCommandChild = "command";  // the user's own job (child/child_command.cpp)

inline const std::vector<std::string>& child_kinds() {
  static const std::vector<std::string> k = {kNativeChild, kPythonChild, kCommandChild};
  return k;
}

inline bool is_child_kind(const std::string& kind) {
  for (const auto& k : child_kinds())
    if (k == kind) return true;
  return false;
}

// "\"native\", \"python\" or \"command\"", for an error message.
inline std::string child_kinds_text() {
  std::string out;
  const auto& k = child_kinds();
  for (size_t i = 0; i < k.size(); ++i) {
    if (i) out += i + 1 == k.size() ? " or " : ", ";
    out += "\"" + k[i] + "\"";
  }
  return out;
}

}  // namespace wmb

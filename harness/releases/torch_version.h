// Torch version strings as `wmbench releases` takes them from the command line: checked against a
// strict form before anything runs (a version is only ever an argv element, never seen by a
// shell), turned into pip's requirement, matched against what an environment really imported,
// and ordered as releases (PEP 440's order for the forms torch uses), not as text or by date.
#pragma once

#include <string>
#include <vector>

namespace wmb::releases {

// Why `text` is not a torch version this command takes ("" when it is): digits separated by dots
// (2 to 4 numbers: "2.12", "2.12.1"), then optionally aN/bN/rcN, .postN, .devN, and a local
// "+cpu"/"+cu130" of letters, digits and dots; at most 64 characters.
std::string version_problem(const std::string& text);

// pip's requirement for the request: "2.12" -> "torch==2.12.*" (the newest 2.12.x the index has),
// anything longer -> "torch==2.12.1" (pip's == then also takes 2.12.1+cpu).
std::string pip_requirement(const std::string& request);

// Whether the torch.__version__ an environment imported is the release asked for: "2.12" takes
// 2.12.x (any local part); "2.12.1" takes 2.12.1 and 2.12.1+LOCAL; a request with a local part
// takes exactly that.
bool version_matches(const std::string& request, const std::string& imported);

// < 0, 0, > 0 as a is an older, the same, a newer release than b. Release numbers first (2.9 <
// 2.12), then dev < aN < bN < rcN < the release < postN; the local part orders last, as text.
int compare_versions(const std::string& a, const std::string& b);

// A name for a folder or a cache key: the version with every character outside [A-Za-z0-9._-]
// as '_' ("2.11.0+cpu" -> "2.11.0_cpu").
std::string file_safe(const std::string& text);

}  // namespace wmb::releases

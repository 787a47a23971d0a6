// A release folder's provenance/<folder>.txt: its packages as `pip freeze` writes them,
// "name==version\n" sorted by the ASCII-lowercased name. One text for the writer
// (releases/provenance.cpp) and the reader that verifies it (check/check_releases.cpp).
#pragma once

#include <map>
#include <string>

namespace wmb {

std::string freeze_text(const std::map<std::string, std::string>& packages);

}  // namespace wmb

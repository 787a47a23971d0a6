// A record that cannot be written where it belongs (runs/<NN>-<label>.json is a planted link, a
// folder, or runs/ itself is a link) never costs the measurement: it is written beside, and the
// message says where. Tried in order, each without following a link:
//   runs/<NN>-<label>.json.rescued        (inside runs/, a name no reader takes for a record)
//   <NN>-<label>.json.rescued             (the folder itself)
//   <folder>.<NN>-<label>.json.rescued    (beside the folder, in its parent)
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/files.h"

namespace wmb {

// Returns the path written ("" when every place refused; `why` then holds each reason).
std::string rescue_record(const Folder& folder, const std::string& stem, const nlohmann::json& record, std::string& why);

}  // namespace wmb

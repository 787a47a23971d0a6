// A record that cannot be written where it belongs (runs/<NN>-<label>.json is a planted link, a
// folder, runs/ itself is a link, or the disk is full) never costs the measurement: it is written
// beside, and the message says where. Tried in order, each without following a link:
//   runs/<NN>-<label>.json.rescued        (inside runs/, a name no reader takes for a record)
//   <NN>-<label>.json.rescued             (the folder itself)
//   <folder>.<NN>-<label>.json.rescued    (beside the folder, in its parent)
//   $TMPDIR/wmbench-rescued-<folder>-<NN>-<label>-XXXXXX.json   (another filesystem, most often:
//                                          a full disk refuses the three above; made with
//                                          mkstemp, O_EXCL, so never through a planted name)
// When every one refuses, the caller prints the record itself (rescue_record_text) on the terminal.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "io/files.h"

namespace wmb {

// Returns the path written ("" when every place refused; `why` then holds each reason).
std::string rescue_record(const Folder& folder, const std::string& stem, const nlohmann::json& record, std::string& why);

// The last resort: the record as one line of JSON, to be kept from the terminal by hand.
std::string rescue_record_text(const nlohmann::json& record);

}  // namespace wmb

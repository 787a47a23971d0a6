// The device a result folder measured, as every file of it that names one says it: machine.json
// "device", summary.json "device" and "machine"."device", scenario.json "device" and each run
// record's "device" (summary.json "runs", verified against runs/ by verify_runs.h). A folder
// measures one device; when its files name two, compare and history cannot know which to believe
// (a summary.json edited by hand, or copied from another folder, would put the folder in another
// series), so they refuse it, naming both files and both values and the fix. `wmbench check`
// names the same disagreement (check/check.cpp).
#pragma once

#include <string>

#include "readback/result_folder.h"

namespace wmb::compare {

// The device ("?" when no file names one). Throws CompareError when two files disagree.
std::string folder_device(const ResultFolder& f);

}  // namespace wmb::compare

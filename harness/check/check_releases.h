// `wmbench check` of a releases folder (`wmbench releases`: releases.json, one result folder per
// release, provenance/<folder>.txt): each done release's folder checked as a result folder, and the
// provenance verified: the freeze file holds exactly the packages releases.json records, the torch
// among them is the release's torch, each wheel names a file and a sha256 of 64 hex digits.
#pragma once

#include <string>

#include "check/check.h"

namespace wmb {

bool is_releases_folder(const std::string& dir);  // releases.json there, no machine.json
CheckResult check_releases_folder(const std::string& dir);

}  // namespace wmb

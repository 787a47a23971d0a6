// `wmbench info` after its flags: this machine, its torch, and the limit each default setting
// gives; text, or one JSON object with --json. Returns the exit code (1: the child said no hello).
#pragma once

#include <string>

namespace wmb::inspect {

int run_info(std::string device, bool json_out, const std::string& python);

}  // namespace wmb::inspect

// Reading a pasted error message (a file, or standard input for "-" or nothing), bounded to
// kMaxPastedTextBytes: `wmbench explain` and `wmbench predict --from-error` share it.
#pragma once

#include <string>

namespace wmb {

// Reads the whole input into `out`; on failure prints "<command>: ..." naming the file and returns false.
bool read_pasted_input(const char* command, const std::string& file, std::string& out);

}  // namespace wmb

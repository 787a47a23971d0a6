// The user's own job as the child (`wmbench run --command -- CMD ARGS...`, scenario "program":
// "command" with "command": [argv...]): each cell runs the command once, with the cell's
// environment, under the guard. It does not speak the fill protocol: its stdout and stderr are
// kept, bounded, in the folder (job_output.h), the footprint is its whole process tree's
// (proctree/tree_probe.h), and who stopped it is classify_job (classify_job.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace wmb {

class FillChild;

// The program of `argv[0]`, as it will be run: a path with '/' as given, else the first
// executable regular file of that name on $PATH. Throws RunRefused (exit 2) naming the program
// and what is wrong (no command, not found on PATH, not a regular file, not executable) before
// any folder is made.
std::string resolve_job_program(const std::vector<std::string>& argv);

// The command child: argv with argv[0] resolved (resolve_job_program).
std::unique_ptr<FillChild> command_fill_child(const std::vector<std::string>& argv);

// True for the command child (it speaks no protocol; the runner watches it as a job).
bool is_job_child(const FillChild& child);

}  // namespace wmb

// wmbench doctor [--json] [--out DIR] [--fill PATH]: checks, on this machine, each assumption
// wmbench's platform code makes (doctor/doctor.h). The first thing to run on a new Mac.
#include <memory>

#include "cli/command.h"
#include "doctor/doctor.h"

namespace wmb::cli {
namespace {

Registrar reg_doctor{Command{5, [](CLI::App& app, int& exit_code) {
  auto o = std::make_shared<doctor::DoctorOptions>();
  auto* c = app.add_subcommand("doctor", "Check each assumption wmbench makes about this machine (first thing on a new Mac)");
  c->add_flag("--json", o->json, "One JSON object instead of the table");
  c->add_option("--out", o->out, "Write doctor.json into this folder (made if missing) to attach to a report");
  c->add_option("--fill", o->fill, "wmbench-fill to use (default: $WMBENCH_FILL, next to wmbench, PATH)");
  c->callback([o, &exit_code] { exit_code = doctor::run_doctor(*o); });
}}};

}  // namespace
}  // namespace wmb::cli

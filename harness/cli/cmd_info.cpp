// wmbench info [--device D] [--json] [--python PYTHON]: this machine, its torch, and the limit each
// setting of the default scenario gives, before any long run. The report is inspect/info.h.
#include <memory>
#include <string>

#include "cli/command.h"
#include "inspect/info.h"

namespace wmb::cli {
namespace {

Registrar reg_info{Command{70, [](CLI::App& app, int& exit_code) {
  auto device = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  auto python = std::make_shared<std::string>();
  auto* c = app.add_subcommand("info", "This machine, its torch, and the limit each default setting gives");
  c->add_option("--device", *device, "Device to ask wmbench-fill about (mps on a Mac, cpu elsewhere)");
  c->add_flag("--json", *json_out, "One JSON object");
  c->add_option("--python", *python, "Ask the Python child under this interpreter (default: $WMBENCH_PYTHON_CHILD)");
  c->callback([device, json_out, python, &exit_code] { exit_code = inspect::run_info(*device, *json_out, *python); });
}}};

}  // namespace
}  // namespace wmb::cli

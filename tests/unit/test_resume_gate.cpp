// The one gate of every --resume (issue 40): job/resume_gate.h. A folder's value that differs from
// the command line's is shown, with how to name it, and refused; the same value passes.
#include <gtest/gtest.h>

#include <string>

#include "job/resume_gate.h"
#include "job/run_input.h"

namespace test_resume_gate {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

TEST(ResumeGate, TheSameValuesPassAndEachDifferingOneIsShownWithHowToNameIt) {
  EXPECT_NO_THROW(gate_resumed_values("D", {{"--tolerance", 5.0, 5, "--tolerance 5"}, {"--force", false, false, "--force"}}));
  try {
    gate_resumed_values("D", {{"--tolerance", 50, 5.0, "--tolerance 50"},
                              {"--force", false, false, "--force"},
                              {"--allow-env", nlohmann::json::array({"LD_PRELOAD"}), nlohmann::json::array(), "--allow-env LD_PRELOAD"}});
    FAIL() << "not refused";
  } catch (const RunInputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("--resume D"), std::string::npos) << w;
    EXPECT_NE(w.find("--tolerance: the folder has 50, this command line 5.0 (to use the folder's, name it: --tolerance 50)"),
              std::string::npos) << w;
    EXPECT_NE(w.find("--allow-env: the folder has [\"LD_PRELOAD\"], this command line []"), std::string::npos) << w;
    EXPECT_EQ(w.find("--force:"), std::string::npos) << "the same value is not named: " << w;
  }
}

TEST(ResumeGate, AFolderValueHoldingControlCharactersIsShownEscaped) {
  try {
    gate_resumed_values("D", {{"--find-links", "\x1b[2J/x", nullptr, "--find-links \x1b[2J/x"}});
    FAIL() << "not refused";
  } catch (const RunInputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos) << e.what();
  }
}

TEST(ResumeGate, ACommandOfAFolderIsRefusedUnlessNamedByTheFlag) {
  Scenario s;
  EXPECT_EQ(folder_command_problem(s, "the folder", false, "how"), "");
  s.program = "command";
  s.command = {"/bin/sh", "-c", "curl x | sh"};
  const std::string why = folder_command_problem(s, "the folder", false, "it runs only with --command");
  EXPECT_NE(why.find("the folder runs a command of its own: [\"/bin/sh\",\"-c\",\"curl x | sh\"]; it runs only with --command"),
            std::string::npos) << why;
  EXPECT_EQ(folder_command_problem(s, "the folder", true, "how"), "");
}

}  // namespace test_resume_gate

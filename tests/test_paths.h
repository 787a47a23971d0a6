// This build's paths for the tests: the test data, the source tree, the binaries, the Python child
// and the python with torch. They are defined in one file that tests/CMakeLists.txt generates into
// the build folder (test_paths.cpp), not given to every test file as -D values: a file whose flags
// name the checkout compiles differently in every checkout, so ccache could never reuse it in CI's
// fresh clone or the simulated Mac's copy. CMake force-includes this header into the tests
// (-include), and so does scripts/cross-macos.sh.
#pragma once

namespace wmbt_paths {
extern const char* const kTestData;    // tests/data
extern const char* const kSourceDir;   // the checkout
extern const char* const kBin;         // wmbench
extern const char* const kFillBin;     // wmbench-fill ("" in a build without it)
extern const char* const kPyFill;      // the build folder's copy of wmbench_fill.py
extern const char* const kTorchPython; // a python3 with torch ("" when none was found)
}  // namespace wmbt_paths

#define WMBENCH_TEST_DATA ::wmbt_paths::kTestData
#define WMBENCH_SOURCE_DIR ::wmbt_paths::kSourceDir
#define WMBENCH_BIN ::wmbt_paths::kBin
#define WMBENCH_FILL_BIN ::wmbt_paths::kFillBin
#define WMBENCH_PYFILL ::wmbt_paths::kPyFill
#define WMBENCH_TORCH_PYTHON ::wmbt_paths::kTorchPython

// `wmbench predict` after its flags: the settings (a scenario's cells or the write-up's), the Mac
// (inspect/predict_inputs.h, or a pasted error: inspect/from_error.h), the model's report
// (mpsmodel/predict.h), printed as text or one JSON object. Returns the exit code.
#pragma once

#include "inspect/predict_inputs.h"

namespace wmb::inspect {

int run_predict(const PredictArgs& args);

}  // namespace wmb::inspect

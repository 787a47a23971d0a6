// The tiny fill: wmbench-fill at PYTORCH_MPS_HIGH_WATERMARK_RATIO = LOW = 0.01 (a limit of about
// 1 % of Metal's recommended max, tens of MiB), which PyTorch's allocator must end with its own
// "MPS backend out of memory" within seconds; explain's parser (errparse/) then reads max
// allowed off that text. On a Mac the device is mps (real MPS); elsewhere mps-model (wmbench's
// model of the allocator, harness/mpsmodel/), which raises the same text. Bounded: a cap of
// 512 MiB, 60 s, then the child's group is stopped.
#pragma once

#include <string>
#include <vector>

#include "doctor/checks.h"

namespace wmb::doctor {

constexpr double kDoctorHigh = 0.01;

struct FillPlan {
  std::string fill_path;          // wmbench-fill (tools/locate.h find_fill)
  std::string device;             // "mps" | "mps-model"
  std::vector<std::string> args;  // the device's own flags (mps-model: --recommended-max, --model-ram)
  bool virtual_device = false;    // a VM's paravirtual Metal device
};

// Runs the child and gathers what the judge needs (judge_fill). Never throws.
FillReading run_tiny_fill(const FillPlan& plan);

}  // namespace wmb::doctor

// One parser per PyTorch message form, each filling a ParsedError from the text after its
// signature (errparse/error_parser.cpp finds the signature and calls it).
#pragma once

#include <cstddef>
#include <string_view>

#include "errparse/error_parser.h"
#include "errparse/text_view.h"

namespace wmb::errparse {

// "MPS backend out of memory (MPS allocated: ..., other allocations: ..., max allowed: ...).
// Tried to allocate ... on private pool."
void parse_mps(const View& v, size_t from, ParsedError& e);
// "CUDA out of memory. Tried to allocate ... (GPU 0; ... total capacity; ... already allocated; ... free; ...)"
// and the newer "GPU 3 has a total capacity of ..." form; the bare "CUDA error: out of memory".
void parse_cuda(const View& v, size_t from, std::string_view signature, ParsedError& e);
// "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes."
void parse_cpu(const View& v, size_t from, ParsedError& e);

}  // namespace wmb::errparse

// The name of the Metal device that PyTorch's MPS backend would use, without Objective-C and
// without linking Metal: the parent links no framework (and so can be linked off a Mac with only
// libSystem's stubs, scripts/cross-macos.sh), so Metal and the Objective-C runtime are loaded at run
// time with dlopen and called through objc_msgSend cast to each method's real type (on arm64
// objc_msgSend must be called with the prototype of the method, never through its variadic
// declaration).
//
// Why MTLCopyAllDevices and not MTLCreateSystemDefaultDevice: Apple's documentation of the latter
// says that in macOS a command-line tool gets a default device only when it links CoreGraphics,
// which wmbench does not; without it the name came back empty and `metal_device_virtual` was false
// on the very VMs it exists to flag. Apple's MTLDevice page says that in macOS you get the list
// with MTLCopyAllDevices, and PyTorch does exactly that.
//
// The selection is the one of PyTorch's aten/src/ATen/mps/MPSDevice.mm (pytorch/pytorch, read at
// commit 017943b70f6920c395e3b6dac100e2cd7ecfa92a), MPSDevice::MPSDevice():
//   NSArray* devices = [MTLCopyAllDevices() autorelease];
//   for each device: skip it when [device isLowPower] ("exclude Intel GPUs"); skip it when
//   ![device supportsFamily:MTLGPUFamilyMac2] ("Virtualised MPS device on MacOS 12.6 should fail
//   this check"); otherwise take it and stop.
// (It first checks that MPSGraph responds to a macOS 14 method, HermiteanToRealFFTWithTensor:...,
// and has no device otherwise: that is why wmbench needs macOS 14. wmbench does not repeat that
// check here: the name is what this machine offers, and `wmbench info` says the macOS version.)
//
// Apple's interfaces used (Metal/MTLDevice.h, objc/message.h, objc/runtime.h of the macOS SDK):
//   NSArray<id<MTLDevice>> *MTLCopyAllDevices(void) NS_RETURNS_RETAINED;   (macOS 10.11+)
//   @property (readonly) NSString *name;  @property (readonly, getter=isLowPower) BOOL lowPower;
//   - (BOOL)supportsFamily:(MTLGPUFamily)gpuFamily;  (macOS 10.15+; MTLGPUFamilyMac2 = 2002)
//   - (NSUInteger)count;  - (id)objectAtIndex:(NSUInteger)index;   (NSArray)
//   - (const char *)UTF8String;                     (NSString)
//   - (oneway void)release;                         (NSObject, manual reference counting)
//   @property (readonly) uint64_t recommendedMaxWorkingSetSize;  (macOS 10.12+; bytes: "an
//   approximation of how much memory, in bytes, this GPU device can allocate without affecting its
//   runtime performance", MTLDevice.h)
//   SEL sel_registerName(const char *);  void *objc_autoreleasePoolPush(void);
//   void objc_autoreleasePoolPop(void *);
// BOOL is a one-byte value on both Apple ABIs (bool on arm64, signed char on x86_64), returned in
// the low byte of the first return register: read here as unsigned char.
// Metal lives in the dyld shared cache: dlopen of its framework path works though no file is there.
// NOT run by its author (no Mac was at hand); compiled and linked for aarch64-macos off a Mac.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "host/metal_device.h"

namespace wmb {
namespace {

using Id = void*;
using Sel = void*;
using CopyAllDevicesFn = Id (*)();
using SelRegisterFn = Sel (*)(const char*);
using PoolPushFn = void* (*)();
using PoolPopFn = void (*)(void*);
using MsgIdFn = Id (*)(Id, Sel);
using MsgIdAtFn = Id (*)(Id, Sel, unsigned long);
using MsgCountFn = unsigned long (*)(Id, Sel);
using MsgBoolFn = unsigned char (*)(Id, Sel);
using MsgBoolLongFn = unsigned char (*)(Id, Sel, long);
using MsgCStrFn = const char* (*)(Id, Sel);
using MsgVoidFn = void (*)(Id, Sel);
using MsgU64Fn = uint64_t (*)(Id, Sel);

constexpr const char* kObjcPath = "/usr/lib/libobjc.A.dylib";
constexpr const char* kMetalPath = "/System/Library/Frameworks/Metal.framework/Metal";
constexpr long kMTLGPUFamilyMac2 = 2002;  // Metal/MTLDevice.h: MTLGPUFamilyMac2 = 2002

template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(lib, name));
}

std::string dl_failure(const char* what) {
  const char* e = ::dlerror();
  return std::string(what) + ": " + (e ? e : "unknown dlerror");
}

// The Objective-C calls this file makes, each cast to its method's type.
struct Objc {
  SelRegisterFn sel;
  void* send;
  Id call_id(Id obj, const char* s) const { return reinterpret_cast<MsgIdFn>(send)(obj, sel(s)); }
  Id at(Id array, unsigned long i) const { return reinterpret_cast<MsgIdAtFn>(send)(array, sel("objectAtIndex:"), i); }
  unsigned long count(Id array) const { return reinterpret_cast<MsgCountFn>(send)(array, sel("count")); }
  bool flag(Id obj, const char* s) const { return reinterpret_cast<MsgBoolFn>(send)(obj, sel(s)) != 0; }
  bool supports_family(Id device, long family) const {
    return reinterpret_cast<MsgBoolLongFn>(send)(device, sel("supportsFamily:"), family) != 0;
  }
  std::string name(Id obj) const {
    Id ns = call_id(obj, "name");
    const char* utf8 = ns ? reinterpret_cast<MsgCStrFn>(send)(ns, sel("UTF8String")) : nullptr;
    return utf8 ? std::string(utf8) : std::string();  // copied before the pool that may own it is popped
  }
  void release(Id obj) const { reinterpret_cast<MsgVoidFn>(send)(obj, sel("release")); }
  uint64_t u64(Id obj, const char* s) const { return reinterpret_cast<MsgU64Fn>(send)(obj, sel(s)); }
};

// MPSDevice.mm's choice among the devices: the first that is not low-power and supports
// MTLGPUFamilyMac2. "" when none is; *skipped then says what each device was refused for.
// *first: the first device's name, whatever it is.
std::string pick_as_mps_does(const Objc& objc, Id devices, std::string* skipped, std::string* first,
                             Id* picked = nullptr) {
  const unsigned long n = objc.count(devices);
  for (unsigned long i = 0; i < n; ++i) {
    Id device = objc.at(devices, i);
    if (!device) continue;
    if (first->empty()) *first = objc.name(device);
    if (objc.flag(device, "isLowPower")) {
      *skipped += " '" + objc.name(device) + "' is low-power;";
      continue;
    }
    if (!objc.supports_family(device, kMTLGPUFamilyMac2)) {
      *skipped += " '" + objc.name(device) + "' lacks MTLGPUFamilyMac2 (Metal 2);";
      continue;
    }
    if (picked) *picked = device;
    return objc.name(device);
  }
  return std::string();
}

// Metal's device as MPS picks it: its name (or the first device's, see metal_default_device_name)
// and, for the picked device only, recommendedMaxWorkingSetSize. Read inside one autorelease pool.
struct Picked {
  std::string name, first, skipped, failure;
  unsigned long count = 0;
  std::optional<uint64_t> recommended_max;
};

Picked read_metal() {
  Picked r;
  // Both handles stay open: Metal keeps state for the process, and unloading frameworks is unsafe.
  void* objc_lib = ::dlopen(kObjcPath, RTLD_NOW | RTLD_LOCAL);
  if (!objc_lib) return r.failure = dl_failure("dlopen libobjc"), r;
  void* metal = ::dlopen(kMetalPath, RTLD_NOW | RTLD_LOCAL);
  if (!metal) return r.failure = dl_failure("dlopen Metal.framework"), r;
  auto copy_all = symbol<CopyAllDevicesFn>(metal, "MTLCopyAllDevices");
  auto push = symbol<PoolPushFn>(objc_lib, "objc_autoreleasePoolPush");
  auto pop = symbol<PoolPopFn>(objc_lib, "objc_autoreleasePoolPop");
  const Objc objc{symbol<SelRegisterFn>(objc_lib, "sel_registerName"), ::dlsym(objc_lib, "objc_msgSend")};
  if (!copy_all || !objc.sel || !push || !pop || !objc.send)
    return r.failure = "Metal or libobjc lacks a symbol this code needs", r;
  void* pool = push();
  Id devices = copy_all();  // the Copy rule: we own the array (its devices are the array's)
  if (devices) {
    r.count = objc.count(devices);
    Id picked = nullptr;
    r.name = pick_as_mps_does(objc, devices, &r.skipped, &r.first, &picked);
    if (picked) r.recommended_max = objc.u64(picked, "recommendedMaxWorkingSetSize");
    objc.release(devices);
  }
  pop(pool);
  if (!devices || r.count == 0) r.failure = "MTLCopyAllDevices returned no Metal device";
  return r;
}

}  // namespace

std::string metal_default_device_name(std::string* why) {
  Picked p = read_metal();
  auto fail = [why](std::string w) {
    if (why) *why = std::move(w);
    return std::string();
  };
  if (!p.failure.empty()) return fail(p.failure);
  if (p.name.empty() && p.first.empty()) return fail("the Metal device has no name");
  if (p.name.empty()) {
    // Still the machine's device, so that a VM's paravirtual device is named (and flagged) even
    // where MPS would refuse it; *why says that MPS would use none.
    if (!p.skipped.empty()) p.skipped.pop_back();
    if (why) *why = "no Metal device that MPS would use (as aten/src/ATen/mps/MPSDevice.mm selects):" + p.skipped;
    return p.first;
  }
  return p.name;
}

std::optional<uint64_t> metal_recommended_max_working_set(std::string* why) {
  Picked p = read_metal();
  if (!p.failure.empty() || !p.recommended_max) {
    if (why) *why = !p.failure.empty() ? p.failure : "no Metal device that MPS would use";
    return std::nullopt;
  }
  return p.recommended_max;
}

}  // namespace wmb

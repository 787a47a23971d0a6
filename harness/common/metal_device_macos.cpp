// The default Metal device's name, without Objective-C and without linking Metal: the parent links
// no framework (and so can be linked off a Mac with only libSystem's stubs, scripts/cross-macos.sh),
// so Metal and the Objective-C runtime are loaded at run time with dlopen and called through
// objc_msgSend cast to each method's real type (on arm64 objc_msgSend must be called with the
// prototype of the method, never through its variadic declaration).
//
// Apple's interfaces used (Metal/MTLDevice.h, objc/message.h, objc/runtime.h of the macOS SDK):
//   id<MTLDevice> MTLCreateSystemDefaultDevice(void) NS_RETURNS_RETAINED;   (macOS 10.11+)
//   @property (readonly) NSString *name;            (MTLDevice)
//   - (const char *)UTF8String;                     (NSString)
//   - (oneway void)release;                         (NSObject, manual reference counting)
//   SEL sel_registerName(const char *);  void *objc_autoreleasePoolPush(void);
//   void objc_autoreleasePoolPop(void *);
// Metal lives in the dyld shared cache: dlopen of its framework path works though no file is there.
// NOT run by its author (no Mac was at hand); compiled and linked for aarch64-macos off a Mac.
#include <dlfcn.h>

#include <string>

#include "common/metal_device.h"

namespace wmb {
namespace {

using Id = void*;
using Sel = void*;
using CreateDeviceFn = Id (*)();
using SelRegisterFn = Sel (*)(const char*);
using PoolPushFn = void* (*)();
using PoolPopFn = void (*)(void*);
using MsgIdFn = Id (*)(Id, Sel);
using MsgCStrFn = const char* (*)(Id, Sel);
using MsgVoidFn = void (*)(Id, Sel);

constexpr const char* kObjcPath = "/usr/lib/libobjc.A.dylib";
constexpr const char* kMetalPath = "/System/Library/Frameworks/Metal.framework/Metal";

template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(lib, name));
}

std::string dl_failure(const char* what) {
  const char* e = ::dlerror();
  return std::string(what) + ": " + (e ? e : "unknown dlerror");
}

}  // namespace

std::string metal_default_device_name(std::string* why) {
  auto fail = [why](std::string w) {
    if (why) *why = std::move(w);
    return std::string();
  };
  // Both handles stay open: Metal keeps state for the process, and unloading frameworks is unsafe.
  void* objc = ::dlopen(kObjcPath, RTLD_NOW | RTLD_LOCAL);
  if (!objc) return fail(dl_failure("dlopen libobjc"));
  void* metal = ::dlopen(kMetalPath, RTLD_NOW | RTLD_LOCAL);
  if (!metal) return fail(dl_failure("dlopen Metal.framework"));
  auto create = symbol<CreateDeviceFn>(metal, "MTLCreateSystemDefaultDevice");
  auto sel = symbol<SelRegisterFn>(objc, "sel_registerName");
  auto push = symbol<PoolPushFn>(objc, "objc_autoreleasePoolPush");
  auto pop = symbol<PoolPopFn>(objc, "objc_autoreleasePoolPop");
  void* send = ::dlsym(objc, "objc_msgSend");
  if (!create || !sel || !push || !pop || !send) return fail("Metal or libobjc lacks a symbol this code needs");

  void* pool = push();
  std::string name;
  Id device = create();
  if (device) {
    Id ns_name = reinterpret_cast<MsgIdFn>(send)(device, sel("name"));
    const char* utf8 = ns_name ? reinterpret_cast<MsgCStrFn>(send)(ns_name, sel("UTF8String")) : nullptr;
    if (utf8) name = utf8;  // copied before the pool (which may own the string's buffer) is popped
    reinterpret_cast<MsgVoidFn>(send)(device, sel("release"));  // the Create rule: we own the device
  }
  pop(pool);
  if (!device) return fail("MTLCreateSystemDefaultDevice returned nil (no Metal device)");
  if (name.empty()) return fail("the Metal device has no name");
  return name;
}

}  // namespace wmb

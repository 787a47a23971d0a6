#!/usr/bin/env python3
"""wmbench_fill.py: the Python fill child of wmbench, for testing the torch of a Python environment.

It speaks exactly the protocol of the C++ child `wmbench-fill` (docs/ARCHITECTURE.md, "Child
protocol"), takes the same flags and exits with the same codes, so the parent can run either:

    python3 wmbench_fill.py --device cpu --step 512MiB [--cap 4GiB] [--data random|ones|zeros]
                            [--program fill|offload] [--offload-size 4GiB] [--step-delay 0.5]
                            [--memory-fraction 0.8] [--hello-only]

stdout: one JSON object per line, each written with one write() call. Exit codes: 0 done (cap
reached, or the program ended), 3 an allocation / torch error was reported, 2 usage error (stderr +
an error line with "exception":"usage"), 1 anything else. SIGTERM / SIGINT keep their default
action (the parent stops the whole process group).

Devices: cpu, cuda, mps. mps-model (the C++ child's model of the MPS allocator) is not here: asking
for it is a usage error. Standard library and torch only; torch 1.13 to the newest, Python 3.8+.

What differs from the C++ child, on purpose:
  - the hello line has more keys: "child":"python", "python_version", "python_executable",
    "torch_git_version", "torch_file" (torch/__init__.py);
  - "exception" is the Python class ("RuntimeError", "torch.cuda.OutOfMemoryError", "MemoryError"),
    where the C++ child gives the C++ type ("c10::Error"); the text is the same PyTorch message
    (str(exception): PyTorch's Python binding drops the C++ backtrace unless
    TORCH_SHOW_CPP_STACKTRACES=1, as the C++ child's what_without_backtrace() does);
  - cpu tensors come from PyTorch's own CPU allocator (torch.empty + uniform_/fill_/zero_), where
    the C++ child maps fresh memory itself and fills it near memory speed (harness/fillbase/fast_fill.cpp);
    both refuse with PyTorch's "DefaultCPUAllocator: can't allocate memory" text;
  - Python warnings (warnings.warn, and torch's TORCH_WARN, which reach Python as warnings) become
    {"type":"warning"} lines after the hello;
  - torch_version is torch.__version__ (Debian's python3-torch says "1.13.0a0" where its libtorch
    headers say "1.13.0").
"""

import json
import math
import os
import signal
import sys
import time
import warnings
import weakref

# --------------------------------------------------------------------------------------------
# Protocol output
# --------------------------------------------------------------------------------------------


class Out:
    """Writes protocol lines to one file descriptor, each with a single write() (loop only on a
    short write), so a line is never interleaved."""

    def __init__(self, fd):
        self.fd = fd
        self.pending_warnings = []  # warnings seen before the hello
        self.hello_sent = False

    def write(self, msg):
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
        # Lone surrogates (undecodable bytes in a message) become U+FFFD, as the C++ child's
        # nlohmann::json replace handler does.
        data = line.encode("utf-8", "replace")
        while data:
            try:
                n = os.write(self.fd, data)
            except InterruptedError:
                continue
            except OSError:
                return  # the reader is gone; nothing useful to do
            data = data[n:]

    def warning(self, text):
        if self.hello_sent:
            self.write({"type": "warning", "text": text})
        else:
            self.pending_warnings.append(text)

    def hello(self, msg):
        self.write(msg)
        self.hello_sent = True
        for text in self.pending_warnings:
            self.write({"type": "warning", "text": text})
        self.pending_warnings = []


def take_stdout():
    """A private duplicate of stdout for the protocol (os.dup is close-on-exec), and fd 1 pointed
    at stderr, so that anything else printing to stdout (torch, a library) cannot break a line.
    As ProtocolOut::take_stdout in harness/fillbase/protocol_out.cpp."""
    try:
        fd = os.dup(1)
    except OSError:
        return Out(1)
    os.dup2(2, 1)
    return Out(fd)


def pytorch_env():
    """Every PYTORCH_* variable of this process's environment, verbatim (bytes that are not
    UTF-8 become U+FFFD)."""
    env = {}
    source = os.environb if hasattr(os, "environb") else {k.encode(): v.encode() for k, v in os.environ.items()}
    for k, v in source.items():
        if k.startswith(b"PYTORCH_"):
            env[k.decode("utf-8", "replace")] = v.decode("utf-8", "replace")
    return env


def self_footprint_bytes():
    """VmRSS + VmSwap from /proc/self/status on Linux (as self_footprint_bytes() in
    protocol_out.cpp); None elsewhere or when VmRSS is missing."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/self/status") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    total, seen = 0, False
    for line in lines:
        key, _, rest = line.partition(":")
        if key not in ("VmRSS", "VmSwap"):
            continue
        parts = rest.split()
        if parts and parts[0].isdigit():
            total += int(parts[0]) * 1024
            seen = seen or key == "VmRSS"
    return total if seen else None


def error_message(text, exception):
    return {"type": "error", "text": text, "exception": exception}


def exception_name(e):
    """"RuntimeError" for builtins, "torch.cuda.OutOfMemoryError" for others."""
    t = type(e)
    mod = getattr(t, "__module__", "") or ""
    name = getattr(t, "__qualname__", t.__name__)
    return name if mod == "builtins" else mod + "." + name


# --------------------------------------------------------------------------------------------
# Sizes and durations: harness/common/units.cpp, message for message
# --------------------------------------------------------------------------------------------


class UsageError(Exception):
    pass


class UnitError(Exception):
    pass


KIB, MIB, GIB, TIB = 1 << 10, 1 << 20, 1 << 30, 1 << 40
_WS = " \t\n\r\f\v"
_SIZE_UNITS = "bytes, B, KiB, MiB, GiB, TiB (K/M/G/T and KB/MB/GB/TB mean the same, 1024-based)"


def parse_number(text):
    """The whole text must be a finite number (strtod's forms that split_number_unit lets through)."""
    text = text.strip(_WS)
    if not text or "_" in text:
        return None
    try:
        v = float(text)
    except ValueError:
        try:
            v = float.fromhex(text)  # strtod reads hexadecimal floats too
        except ValueError:
            return None
    if not math.isfinite(v):
        return None
    # Underflow, as strtod's ERANGE in harness/common/units.cpp parse_number: "0.5e-400" is not 0.0.
    if v == 0 and any(c in "123456789" for c in text.lower().split("e")[0].split("p")[0].replace("0x", "")):
        return None
    if v != 0 and abs(v) < sys.float_info.min:
        return None
    return v


def split_number_unit(s):
    i = 0
    while i < len(s) and (s[i].isdigit() and s[i].isascii() or s[i] in ".-+eE"):
        # Stop at 'e'/'E' when it starts a unit (no digit or sign follows).
        if s[i] in "eE" and not (i + 1 < len(s) and (s[i + 1].isdigit() or s[i + 1] in "-+")):
            break
        i += 1
    return s[:i].strip(_WS), s[i:].strip(_WS)


def unit_multiplier(unit, whole):
    u = unit.lower()
    if u in ("", "b", "byte", "bytes"):
        return 1
    for mult, names in ((KIB, ("k", "kb", "kib")), (MIB, ("m", "mb", "mib")),
                        (GIB, ("g", "gb", "gib")), (TIB, ("t", "tb", "tib"))):
        if u in names:
            return mult
    raise UnitError('size "%s": unknown unit "%s"; allowed: %s' % (whole, unit, _SIZE_UNITS))


def parse_size(text):
    whole = text.strip(_WS)
    if not whole:
        raise UnitError('size is empty; expected e.g. "512MiB" or "2GiB"')
    num, unit = split_number_unit(whole)
    v = parse_number(num)
    if v is None:
        raise UnitError('size "%s": "%s" is not a number; expected e.g. "512MiB"' % (whole, num))
    if v < 0:
        raise UnitError('size "%s" is negative; sizes must be > 0' % whole)
    nbytes = v * unit_multiplier(unit, whole)  # exact: the multiplier is a power of two
    if nbytes >= 18446744073709551615:
        raise UnitError('size "%s" is too large (over 2^64 bytes)' % whole)
    out = math.floor(nbytes)
    if nbytes - out >= 0.5:  # std::roundl: half away from zero
        out += 1
    if out == 0:
        raise UnitError('size "%s" is zero; sizes must be > 0' % whole)
    return int(out)


def parse_duration(text):
    whole = text.strip(_WS)
    num, unit = split_number_unit(whole)
    v = parse_number(num)
    if v is None:
        raise UnitError('duration "%s" is not a number with a unit; expected e.g. "30s", "10m", "250ms"' % whole)
    mult = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}.get(unit.lower())
    if mult is None:
        raise UnitError('duration "%s": unknown unit "%s"; allowed: ms, s, m, h' % (whole, unit))
    secs = v * mult
    if not secs > 0:
        raise UnitError('duration "%s" must be > 0' % whole)
    if not math.isfinite(secs) or secs > 1e9:
        raise UnitError('duration "%s" is too long (over 30 years)' % whole)
    return secs


# --------------------------------------------------------------------------------------------
# Command line: harness/fillbase/options.cpp, flag for flag and message for message
# --------------------------------------------------------------------------------------------

ALLOWED_DEVICES = ["mps", "cuda", "cpu", "mps-model"]  # as the C++ child lists them
_VALUE_FLAGS = ["--device", "--step", "--data", "--cap", "--program", "--offload-size",
                "--recommended-max", "--model-ram", "--step-delay", "--memory-fraction"]

HELP = """wmbench_fill.py: the Python fill child of wmbench (same protocol and flags as wmbench-fill)
Usage: python3 wmbench_fill.py --device DEVICE --step SIZE [OPTIONS]

Options:
  -h,--help             print this help and exit
  --device TEXT         mps | cuda | cpu (mps-model is the C++ child's only)
  --step TEXT           size of each tensor, e.g. 512MiB (rounded down to a multiple of 4 bytes)
  --data TEXT           random | ones | zeros (default random)
  --cap TEXT            stop (done, reason cap) before holding more than this; default: no cap
  --program TEXT        fill | offload (default fill)
  --offload-size TEXT   program offload: bytes moved to the device and back
  --recommended-max TEXT, --model-ram TEXT
                        mps-model only (refused here)
  --step-delay TEXT     seconds to sleep between steps (e.g. 0.5, 250ms)
  --memory-fraction TEXT
                        mps, cuda: torch.mps/torch.cuda.set_per_process_memory_fraction(F) before the first allocation
  --hello-only          print the hello line (torch version, recommended max) and exit
"""


# harness/common/limits.h kMinMemoryFraction / kMaxMemoryFraction: the one bound of the scenario
# reader, both children and every record reader (a test runs both children on the same values).
MEMORY_FRACTION_MIN = 1e-9
MEMORY_FRACTION_MAX = 1000.0


def memory_fraction_option(text, device):
    """--memory-fraction, as harness/fillbase/options.cpp: a finite number, 0 or of magnitude
    MEMORY_FRACTION_MIN..MEMORY_FRACTION_MAX (within that, the range is torch's to check, so that
    its own error is what the run records)."""
    if device not in ("mps", "cuda"):
        raise UsageError("--memory-fraction applies only to --device mps, cuda or mps-model")
    value = parse_number(text)
    if value is None or not math.isfinite(value):
        raise UsageError('invalid --memory-fraction "%s": expected a finite number such as 0.8' % text)
    value = float(value)
    if not (value == 0 or MEMORY_FRACTION_MIN <= abs(value) <= MEMORY_FRACTION_MAX):
        raise UsageError("--memory-fraction %s is outside the memory fractions wmbench runs and records: 0, or %g to %g "
                         "(either sign)" % (text, MEMORY_FRACTION_MIN, MEMORY_FRACTION_MAX))
    return value


def parse_argv(argv):
    """Returns a dict of options, or None when help was asked for. Raises UsageError.
    Accepts "--flag value" and "--flag=value", as CLI11 does."""
    given = {}
    hello_only = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            return None
        if a == "--hello-only":
            hello_only = True
            i += 1
            continue
        name, eq, value = a.partition("=")
        if name in _VALUE_FLAGS:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError("%s: 1 required TEXT missing" % name)
                value = argv[i + 1]
                i += 1
            if name in given:
                raise UsageError("%s: given more than once" % name)
            given[name] = value
            i += 1
            continue
        raise UsageError("The following argument was not expected: %s" % a)

    for flag in ("--device", "--step"):
        if flag not in given:
            raise UsageError("%s is required" % flag)

    def check_member(what, value, allowed):
        if value not in allowed:
            raise UsageError('unknown %s "%s"; allowed: %s' % (what, value, ", ".join(allowed)))

    def size_option(flag):
        text = given[flag]
        try:
            return parse_size(text)
        except UnitError as e:
            raise UsageError('invalid %s "%s": %s' % (flag, text, e))

    def float_multiple(flag, nbytes):
        if nbytes < 4:
            raise UsageError('%s "%s" is %d bytes, smaller than one float32 element (4 bytes)'
                             % (flag, given[flag], nbytes))
        return nbytes // 4 * 4

    device = given["--device"]
    data = given.get("--data", "random")
    program = given.get("--program", "fill")
    check_member("device", device, ALLOWED_DEVICES)
    if device == "mps-model":
        raise UsageError("device mps-model is the C++ child's model of the MPS allocator (wmbench-fill); "
                         "the Python child runs mps, cuda and cpu: run mps-model without --python")
    check_member("data", data, ["random", "ones", "zeros"])
    check_member("program", program, ["fill", "offload"])
    o = {"device": device, "data": data, "program": program, "cap_bytes": None, "offload_bytes": None,
         "step_delay": 0.0, "hello_only": hello_only, "memory_fraction": None}
    o["step_bytes"] = float_multiple("--step", size_option("--step"))
    if "--cap" in given:
        o["cap_bytes"] = size_option("--cap")
        if o["cap_bytes"] < o["step_bytes"]:
            raise UsageError('--cap "%s" (%d bytes) is smaller than --step "%s" (%d bytes)'
                             % (given["--cap"], o["cap_bytes"], given["--step"], o["step_bytes"]))
    if "--offload-size" in given:
        if program != "offload":
            raise UsageError("--offload-size applies only to --program offload")
        o["offload_bytes"] = float_multiple("--offload-size", size_option("--offload-size"))
    elif program == "offload":
        raise UsageError("--program offload needs --offload-size (e.g. 4GiB)")
    for flag in ("--recommended-max", "--model-ram"):
        if flag in given:  # device is not mps-model here (refused above)
            raise UsageError("%s applies only to --device mps-model" % flag)
    if "--memory-fraction" in given:
        o["memory_fraction"] = memory_fraction_option(given["--memory-fraction"], device)
    if "--step-delay" in given:
        delay = given["--step-delay"]
        plain = parse_number(delay)
        if plain is not None:
            if plain < 0:
                raise UsageError('invalid --step-delay "%s": must be >= 0 seconds' % delay)
            o["step_delay"] = plain
        else:
            try:
                o["step_delay"] = parse_duration(delay)
            except UnitError as e:
                raise UsageError('invalid --step-delay "%s": %s' % (delay, e))
    return o


# --------------------------------------------------------------------------------------------
# Devices (torch is imported only after the command line was accepted)
# --------------------------------------------------------------------------------------------

torch = None  # the module, once imported


def fill_on_device(t, data):
    """Fills a fresh tensor where it lives (random numbers generated on its device)."""
    if data == "random":
        t.uniform_()
    elif data == "ones":
        t.fill_(1.0)
    else:
        t.zero_()
    return t


class CpuDevice:
    """torch.empty on the CPU (PyTorch's DefaultCPUAllocator) and a fill in place. allocated_bytes
    is the bytes of this device's tensors still alive, as the C++ cpu device counts them; there is
    no driver count."""

    name = "cpu"

    def __init__(self):
        self.live = 0

    def _released(self, nbytes):
        self.live -= nbytes

    def allocate(self, nbytes, data):
        t = torch.empty((nbytes // 4,), dtype=torch.float32)
        fill_on_device(t, data)
        self.live += nbytes
        weakref.finalize(t, self._released, nbytes)
        return t

    def stats(self):
        return self.live, None, None  # the CPU allocator keeps no peak

    def recommended_max(self):
        return None

    def synchronize(self):
        pass

    def empty_cache(self):
        pass

    def set_memory_fraction(self, fraction):
        raise UsageError("--memory-fraction applies only to --device mps, cuda or mps-model")

    def max_allowed(self):
        return None


class CudaDevice:
    """cuda:0, as harness/fill/device_cuda.cpp: allocated = torch.cuda.memory_allocated (the caching
    allocator's allocated_bytes.all.current), driver = torch.cuda.memory_reserved
    (reserved_bytes.all.current), recommended max = the device's total memory."""

    name = "cuda"

    def __init__(self):
        if not torch.cuda.is_available():
            raise UsageError("device cuda is not available: this torch (%s) has no CUDA support or sees no "
                             "CUDA device" % torch.__version__)
        self.dev = torch.device("cuda", 0)
        self.allocated_once = False

    def allocate(self, nbytes, data):
        t = torch.empty((nbytes // 4,), dtype=torch.float32, device=self.dev)
        self.allocated_once = True
        return fill_on_device(t, data)

    def stats(self):
        # The C++ child reports 0/0 before the first allocation (torch 2.11's allocator has no state
        # for the device then); do the same.
        if not self.allocated_once:
            return 0, 0, 0
        # peak: torch.cuda.max_memory_allocated, allocated_bytes.all.peak (torch/cuda/memory.py).
        return (int(torch.cuda.memory_allocated(self.dev)), int(torch.cuda.memory_reserved(self.dev)),
                int(torch.cuda.max_memory_allocated(self.dev)))

    def recommended_max(self):
        return int(torch.cuda.get_device_properties(self.dev).total_memory)

    def synchronize(self):
        torch.cuda.synchronize(self.dev)

    def empty_cache(self):
        torch.cuda.empty_cache()

    def set_memory_fraction(self, fraction):
        # torch/cuda/memory.py: _lazy_init(), then TypeError unless a float, ValueError("Invalid
        # fraction value: F. Allowed range: 0~1"), then torch._C._cuda_setMemoryFraction: a limit of
        # F x the device's total memory.
        torch.cuda.set_per_process_memory_fraction(fraction, self.dev)

    def max_allowed(self):
        return None


def mps_peak():
    """allocated_bytes.all.peak of the MPS allocator, or None where this torch keeps none for MPS.
    torch.mps has no max_memory_allocated; torch.accelerator.memory_stats (torch/accelerator/memory.py)
    reads torch._C._accelerator_getDeviceStats, which reaches the MPS allocator only once it is a
    c10::DeviceAllocator (PyTorch #186748, June 2026); before that it raises (getDeviceAllocator's
    assert), and before the first allocation it returns an empty dict."""
    acc = getattr(torch, "accelerator", None)
    fn = getattr(acc, "memory_stats", None) if acc is not None else None
    if fn is None:
        return None
    try:
        v = fn().get("allocated_bytes.all.peak")
    except (RuntimeError, AttributeError, TypeError):
        return None
    return int(v) if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


class MpsDevice:
    """NOT RUN ON A MAC: written on Linux from torch's Python API docs and
    /work/shared/docs/pytorch-allocator-facts.md, as harness/fill/device_mps.cpp.
      - torch.mps.current_allocated_memory / driver_allocated_memory / synchronize / empty_cache exist
        since torch 2.0 (docs.pytorch.org/docs/2.0/generated/torch.mps.current_allocated_memory.html);
        an older torch is refused, as the C++ child refuses a libtorch older than 2.0.
      - torch.mps.recommended_max_memory() (MTLDevice.recommendedMaxWorkingSetSize) exists since
        torch 2.5 (pytorch/pytorch#128289); older releases report null.
      - The MPS allocator reads PYTORCH_MPS_HIGH/LOW_WATERMARK_RATIO when it starts and raises
        RuntimeError ("invalid low watermark ratio 1.4") when they do not fit; if that happens in
        recommended_max(), the hello says null and the same error comes again, verbatim, from the
        first allocation, where it is reported as PyTorch's error.
      - An MPS out-of-memory is a RuntimeError (torch.OutOfMemoryError on newer releases) whose text
        is "MPS backend out of memory (...)": reported verbatim."""

    name = "mps"

    def __init__(self):
        if sys.platform != "darwin":
            raise UsageError("device mps is available only on macOS (Apple silicon); use mps-model "
                             "(the C++ child, wmbench-fill) to model it here")
        backends = getattr(torch, "backends", None)
        if not (backends is not None and hasattr(backends, "mps") and backends.mps.is_available()):
            raise UsageError("MPS is not available: this torch (%s) was built without MPS, or this Mac has no "
                             "usable Metal GPU (Apple silicon and macOS 14 or newer are needed by current PyTorch; "
                             "releases before 2.12 ran on 12.3+)"
                             % torch.__version__)
        mps = getattr(torch, "mps", None)
        if mps is None or not hasattr(mps, "current_allocated_memory"):
            raise UsageError("device mps needs torch 2.0 or newer (torch.mps.current_allocated_memory); "
                             "this is torch %s" % torch.__version__)
        self.mps = mps
        self.dev = torch.device("mps")

    def allocate(self, nbytes, data):
        t = torch.empty((nbytes // 4,), dtype=torch.float32, device=self.dev)
        fill_on_device(t, data)  # generated on the GPU
        # Wait for the GPU so the step time is real and a failure of the fill surfaces here.
        self.mps.synchronize()
        return t

    def stats(self):
        return int(self.mps.current_allocated_memory()), int(self.mps.driver_allocated_memory()), mps_peak()

    def recommended_max(self):
        fn = getattr(self.mps, "recommended_max_memory", None)
        if fn is None:
            return None  # torch < 2.5
        try:
            return int(fn())
        except RuntimeError:
            return None  # a bad watermark setting: reported again by the first allocation


    def synchronize(self):
        self.mps.synchronize()

    def empty_cache(self):
        self.mps.empty_cache()

    def set_memory_fraction(self, fraction):
        # torch/mps/__init__.py: ValueError("Invalid fraction value: F. Allowed range: 0~2") outside
        # 0..2, then torch._C._mps_setMemoryFraction -> MPSHooks::setMemoryFraction ->
        # setHighWatermarkRatio(F): HIGH only, no LOW check; starting the allocator first checks the
        # PYTORCH_MPS_* variables (RuntimeError "invalid low watermark ratio 1.4" from here).
        fn = getattr(self.mps, "set_per_process_memory_fraction", None)
        if fn is None:
            raise UsageError("--memory-fraction: this torch (%s) has no torch.mps.set_per_process_memory_fraction"
                             % torch.__version__)
        fn(fraction)

    def max_allowed(self):
        return None  # torch.mps does not say its limit to the byte (only the error text does)


def make_device(name):
    if name == "cpu":
        return CpuDevice()
    if name == "cuda":
        return CudaDevice()
    if name == "mps":
        return MpsDevice()
    raise UsageError('unknown device "%s"; allowed: %s' % (name, ", ".join(ALLOWED_DEVICES)))


def torch_library():
    """The loaded libtorch_cpu (the library the C++ child names), from /proc/self/maps on Linux;
    on other systems the libtorch_cpu next to the torch package; else torch/__init__.py."""
    try:
        with open("/proc/self/maps") as f:
            paths = [line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6]
        for stem in ("libtorch_cpu.", "libtorch."):
            for p in paths:
                if os.path.basename(p).startswith(stem):
                    return os.path.realpath(p)
    except OSError:
        pass
    lib = os.path.join(os.path.dirname(torch.__file__), "lib")
    for n in ("libtorch_cpu.dylib", "libtorch_cpu.so", "libtorch.dylib", "libtorch.so"):
        if os.path.exists(os.path.join(lib, n)):
            return os.path.realpath(os.path.join(lib, n))
    return os.path.realpath(torch.__file__) if torch.__file__ else None


# --------------------------------------------------------------------------------------------
# Programs: harness/fill/main.cpp (run_fill) and harness/fill/offload.cpp (run_offload)
# --------------------------------------------------------------------------------------------


def run_fill(device, o, out, held):
    step = o["step_bytes"]
    cap = o["cap_bytes"]
    held_bytes = 0
    index = 0

    def fits():
        return cap is None or held_bytes + step <= cap

    while fits():
        t0 = time.perf_counter()
        t = device.allocate(step, o["data"])
        device.synchronize()
        secs = time.perf_counter() - t0
        held.append(t)
        held_bytes += step
        index += 1
        allocated, driver, peak = device.stats()
        out.write({"type": "step", "index": index, "held_bytes": held_bytes, "allocated_bytes": allocated,
                   "driver_bytes": driver, "allocator_peak_bytes": peak, "step_seconds": secs})
        if fits() and o["step_delay"] > 0:
            time.sleep(o["step_delay"])
    out.write({"type": "done", "reason": "cap", "held_bytes": held_bytes})


def emit_stage(out, device, name, held):
    allocated, driver, peak = device.stats()
    out.write({"type": "stage", "name": name, "held_bytes": held, "allocated_bytes": allocated,
               "driver_bytes": driver, "allocator_peak_bytes": peak, "footprint_bytes": self_footprint_bytes()})
    # Hold still a moment so the parent's own footprint sample (taken when it reads this line)
    # sees this stage and not the next one.
    time.sleep(0.3)


def run_offload(device, o, out):
    total = o["offload_bytes"]
    emit_stage(out, device, "start", 0)

    # 1. The "weights" on the device, in step-sized tensors (the last one may be smaller).
    on_device = []
    held = 0
    while held < total:
        n = min(o["step_bytes"], total - held)  # both multiples of 4
        on_device.append(device.allocate(n, o["data"]))
        held += n
    device.synchronize()
    emit_stage(out, device, "on_device", held)

    # 2. .to("cpu"): a real copy even where the device is the CPU, then the device tensors are
    # dropped, the device's cache emptied, and 2 s pass.
    on_cpu = [t.to(device="cpu", copy=True) for t in on_device]
    device.synchronize()
    on_device.clear()
    device.empty_cache()
    time.sleep(2)
    emit_stage(out, device, "moved_to_cpu", held)

    # 3. The CPU reads every page of its copy.
    sink = sum(float(t.sum().item()) for t in on_cpu)  # a generator: no name keeps a tensor alive
    del sink
    emit_stage(out, device, "cpu_read", held)

    # 4. Release to the meta device (no storage), as the write-up's stage-by-stage loading does.
    on_cpu = [t.to(device="meta") for t in on_cpu]
    device.empty_cache()
    emit_stage(out, device, "released", 0)

    out.write({"type": "done", "reason": "program", "held_bytes": 0})


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------


def usage_fail(out, msg):
    sys.stderr.write("wmbench_fill.py: %s\n(try wmbench_fill.py --help)\n" % msg)
    sys.stderr.flush()
    out.write(error_message(msg, "usage"))
    return 2


class TorchRefused(Exception):
    """torch's own refusal of a call the child was asked to make (set_per_process_memory_fraction's
    ValueError / TypeError): reported with torch's text and class, exit 3, as a c10::Error is."""

    def __init__(self, original):
        Exception.__init__(self, str(original))
        self.original = original


def apply_memory_fraction(device, fraction):
    """Before the first allocation, as user code calls it."""
    try:
        device.set_memory_fraction(fraction)
    except (ValueError, TypeError) as e:
        raise TorchRefused(e)


def report_exception(out, e):
    """Reports `e` as an error line; returns the exit code (2 usage, 3 torch / allocation, 1 other)."""
    if isinstance(e, UsageError):
        return usage_fail(out, str(e))
    if isinstance(e, TorchRefused):
        text = str(e.original)
        sys.stderr.write("wmbench_fill.py: %s: %s\n" % (exception_name(e.original), text))
        out.write(error_message(text, exception_name(e.original)))
        return 3
    if isinstance(e, (RuntimeError, MemoryError)):
        # RuntimeError: every c10::Error (the CPU allocator's, MPS out of memory, bad watermark
        # ratios), and torch.cuda.OutOfMemoryError / torch.OutOfMemoryError, its subclasses.
        text = str(e) or exception_name(e)  # a bare MemoryError() from the interpreter has no text
        sys.stderr.write("wmbench_fill.py: %s: %s\n" % (exception_name(e), text))
        out.write(error_message(text, exception_name(e)))
        return 3
    sys.stderr.write("wmbench_fill.py: unexpected %s: %s\n" % (exception_name(e), e))
    import traceback  # noqa: E402
    traceback.print_exc()
    out.write(error_message(str(e), exception_name(e)))
    return 1


def forward_warnings(out):
    def show(message, category, filename, lineno, file=None, line=None):
        out.warning("%s: %s" % (category.__name__, message))
    warnings.showwarning = show


def main(argv):
    # Python turns SIGINT into KeyboardInterrupt and ignores SIGPIPE; the C++ child keeps the
    # default actions, so restore them.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    early = Out(1)
    try:
        o = parse_argv(argv)
    except UsageError as e:
        return usage_fail(early, str(e))
    if o is None:
        sys.stdout.write(HELP)
        sys.stdout.flush()
        return 0

    out = take_stdout()
    forward_warnings(out)
    global torch
    held = []  # outlives any exception: the error line is written while every tensor is held
    device = None
    code = 0
    try:
        try:
            import torch as torch_module  # noqa: E402 (after the command line was accepted)
        except ImportError as e:
            out.write(error_message("cannot import torch in %s: %s" % (sys.executable, e), exception_name(e)))
            sys.stderr.write("wmbench_fill.py: cannot import torch: %s\n" % e)
            return 1
        torch = torch_module
        device = make_device(o["device"])
        hello = {"type": "hello", "pid": os.getpid(), "torch_version": str(torch.__version__),
                 "torch_library": torch_library(), "device": device.name,
                 "recommended_max_bytes": device.recommended_max(), "env": pytorch_env(),
                 "step_bytes": o["step_bytes"], "data": o["data"], "cap_bytes": o["cap_bytes"],
                 "program": o["program"]}
        if o["program"] == "offload":
            hello["offload_bytes"] = o["offload_bytes"]
        hello["memory_fraction"] = o["memory_fraction"]  # after offload_bytes, in the C++ child's order
        version = getattr(torch, "version", None)
        hello.update({"child": "python", "python_version": "%d.%d.%d" % tuple(sys.version_info[:3]),
                      "python_executable": sys.executable,
                      "torch_git_version": getattr(version, "git_version", None),
                      "torch_file": torch.__file__})
        out.hello(hello)

        if not o["hello_only"] and o["memory_fraction"] is not None:
            apply_memory_fraction(device, o["memory_fraction"])
        if o["hello_only"]:
            pass  # nothing else: `wmbench info` and `predict` only want the hello
        elif o["program"] == "offload":
            run_offload(device, o, out)
        else:
            run_fill(device, o, out, held)
    except BaseException as e:  # noqa: B902 (SystemExit / KeyboardInterrupt are reported too)
        code = report_exception(out, e)
        # The exact limit, to the byte, where the device knows it (none of these devices does).
        if device is not None and code == 3:
            m = device.max_allowed()
            if m is not None:
                out.write({"type": "limit", "max_allowed_bytes": m})
    return code


if __name__ == "__main__":
    rc = main(sys.argv[1:])
    try:
        sys.stderr.flush()
    finally:
        # As the C++ child's _Exit: no teardown of tens of GiB of tensors or of torch's state.
        os._exit(rc)

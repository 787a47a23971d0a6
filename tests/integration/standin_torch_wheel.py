#!/usr/bin/env python3
"""Builds a stand-in torch wheel for wmbench's tests of `wmbench releases` (no package index here).

    python3 standin_torch_wheel.py --version 2.12.0 --out WHEELHOUSE --real /usr/lib/python3/dist-packages/torch/__init__.py
                                   [--git HASH] [--limit BYTES] [--says VERSION] [--pad BYTES] [--tag TAG]

The wheel (torch-VERSION-py3-none-any.whl, standard library only: zipfile, a METADATA, WHEEL and
RECORD) holds a pure-Python `torch` package whose __init__ loads the real torch given by --real
(Debian's python3-torch) under the name `torch` and then says VERSION as torch.__version__ and
HASH as torch.version.git_version. With --limit, torch.empty raises PyTorch's MPS out-of-memory
text ("... max allowed: LIMIT ...") once the tensors it made would pass LIMIT bytes: a stand-in
for a release whose allocator has another limit. Prints the wheel's path.

Without --real the wheel is light: a `torch` that imports nothing (its version, git version,
torch.version.cuda None, no CUDA, no MPS), for the runs whose release's torch is only probed, never
filled with (mps-model, whose model is wmbench-fill's): an import in milliseconds instead of the
real torch's 1.5 s of CPU, paid at every probe of every env.
"""

import argparse
import base64
import hashlib
import os
import zipfile

INIT = '''"""A stand-in for torch {version}, made by wmbench's tests: the real torch of {real}, saying {version}."""
import importlib.util as _u
import os as _o
import sys as _s

_REAL = {real!r}
_SITE = _o.path.dirname(_o.path.dirname(_REAL))
if _SITE not in _s.path:
    _s.path.append(_SITE)
_spec = _u.spec_from_file_location("torch", _REAL, submodule_search_locations=[_o.path.dirname(_REAL)])
_m = _u.module_from_spec(_spec)
_s.modules["torch"] = _m
_spec.loader.exec_module(_m)
_m.__version__ = {version!r}
_m.version.__version__ = {version!r}
_m.version.git_version = {git!r}
_m.__wmbench_standin__ = True
if _o.environ.get("WMBENCH_STANDIN_IMPORT_LOG"):  # the tests count the imports: sys.argv[0] of each
    with open(_o.environ["WMBENCH_STANDIN_IMPORT_LOG"], "a") as _f:
        _f.write(_s.argv[0] + "\\n")
_LIMIT = {limit}
if _LIMIT:
    _orig_empty = _m.empty
    _held = [0]

    def _size(n):
        for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if n >= scale:
                return "%.2f %s" % (n / scale, unit)
        return "%d bytes" % n

    def empty(*args, **kwargs):
        t = _orig_empty(*args, **kwargs)
        n = t.element_size() * t.nelement()
        if _held[0] + n > _LIMIT:
            raise RuntimeError(
                "MPS backend out of memory (MPS allocated: %s, other allocations: 0 bytes, max allowed: %s). "
                "Tried to allocate %s on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper "
                "limit for memory allocations (may cause system failure)." % (_size(_held[0]), _size(_LIMIT), _size(n)))
        _held[0] += n
        return t

    _m.empty = empty
'''


LIGHT = '''"""A light stand-in for torch {version}, made by wmbench's tests: no real torch (mps-model runs only)."""
import types as _t

__version__ = {version!r}
version = _t.SimpleNamespace(__version__={version!r}, git_version={git!r}, cuda=None)
cuda = _t.SimpleNamespace(is_available=lambda: False)
backends = _t.SimpleNamespace(mps=_t.SimpleNamespace(is_available=lambda: False))
__wmbench_standin__ = True
'''


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--version", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--real", help="the real torch/__init__.py it loads (default: none, a light stand-in)")
    p.add_argument("--git", default="0123456789abcdef0123456789abcdef01234567")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--pad", type=int, default=0, help="add torch/lib/pad.bin of this many random bytes (a big wheel)")
    p.add_argument("--says", help="the torch.__version__ it says (default: --version): a wheel that lies")
    p.add_argument("--tag", default="py3-none-any", help="its compatibility tag, e.g. cp39-cp39-manylinux1_x86_64 (a wheel for another Python)")
    a = p.parse_args()
    if a.limit and not a.real:
        p.error("--limit needs --real (the limit wraps the real torch.empty)")
    if a.real:
        init = INIT.format(version=a.says or a.version, real=os.path.abspath(a.real), git=a.git, limit=a.limit)
    else:
        init = LIGHT.format(version=a.says or a.version, git=a.git)
    dist = "torch-%s.dist-info" % a.version
    files = {
        "torch/__init__.py": init.encode(),
        dist + "/METADATA": ("Metadata-Version: 2.1\nName: torch\nVersion: %s\nSummary: wmbench test stand-in\n" % a.version).encode(),
        dist + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: wmbench-tests\nRoot-Is-Purelib: true\nTag: %s\n" % a.tag).encode(),
    }
    if a.pad:
        files["torch/lib/pad.bin"] = os.urandom(a.pad)
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "torch-%s-%s.whl" % (a.version, a.tag))
    record = [record_line(n, d) for n, d in files.items()] + [dist + "/RECORD,,"]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
        z.writestr(dist + "/RECORD", "\n".join(record) + "\n")
    print(path)


if __name__ == "__main__":
    main()

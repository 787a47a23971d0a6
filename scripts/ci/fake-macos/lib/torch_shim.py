# Stand-in for pip's torch wheel on the simulated Mac (scripts/ci/fake-macos/lib/pip): the package
# `torch` in the venv is Debian's torch 1.13 (/usr/lib/python3/dist-packages/torch) run under this
# name, with the stand-in wheel's version and a torch.utils.cmake_prefix_path that points at this
# package's share/cmake, whose Torch/TorchConfig.cmake includes Debian's libtorch.
import os as _os
import sys as _sys

_here = _os.path.dirname(_os.path.abspath(__file__))
_dist = "/usr/lib/python3/dist-packages"
if _dist not in _sys.path:
    _sys.path.append(_dist)
_real = _os.path.join(_dist, "torch")
__path__ = [_real]
__file__ = _os.path.join(_real, "__init__.py")
with open(__file__) as _f:
    exec(compile(_f.read(), __file__, "exec"))
import torch.utils as _utils  # noqa: E402

_utils.cmake_prefix_path = _os.path.join(_here, "share", "cmake")
with open(_os.path.join(_here, "fake-version")) as _f:
    __version__ = _f.read().strip() + "+standin.debian." + __version__  # noqa: F821 (set by the exec)

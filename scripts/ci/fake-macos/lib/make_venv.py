# `python@3.N -m venv DIR` for the stand-in Homebrew pythons (scripts/ci/fake-macos): a real venv of
# Debian's python3 without ensurepip (Debian splits it out), then the stand-in pip (lib/pip), and
# the version the venv stands for in DIR/fake-python-version (the stand-in pip answers for it).
import os
import shutil
import sys
import sysconfig
import venv

version = sys.argv[1]
dirs = [a for a in sys.argv[2:] if not a.startswith("-")]
if len(dirs) != 1:
    sys.exit("python%s -m venv (stand-in): one folder, got %r" % (version, sys.argv[2:]))
target = os.path.abspath(dirs[0])
venv.EnvBuilder(with_pip=False, symlinks=True, clear=True).create(target)
site = os.path.join(target, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
here = os.path.dirname(os.path.abspath(__file__))
shutil.copytree(os.path.join(here, "pip"), os.path.join(site, "pip"))
shutil.copy(os.path.join(here, "torch_shim.py"), os.path.join(site, "pip", "torch_shim.py"))
with open(os.path.join(target, "fake-python-version"), "w") as f:
    f.write(version + "\n")

# Stand-in pip inside a venv of the simulated Mac (scripts/ci/fake-macos/lib/make_venv.py).
# Its index: torch 2.11.0 for CPython 3.10-3.14 (nothing for 3.15, Homebrew's new `python3`), and
# matplotlib. "Installing" torch lays down lib/torch_shim.py as the package torch (Debian's torch
# 1.13 under the wheel's version, its share/cmake/Torch/TorchConfig.cmake including Debian's
# libtorch); "installing" matplotlib adds Debian's dist-packages with a .pth. Anything it does not
# simulate fails with exit 2, so that a changed set-up is noticed.
import glob
import os
import re
import shutil
import sys

TORCH = "2.11.0"
TORCH_PYTHONS = [(3, m) for m in range(10, 15)]
DIST = "/usr/lib/python3/dist-packages"
here = os.path.dirname(os.path.abspath(__file__))  # make_venv.py put torch_shim.py here too
site = os.path.dirname(here)  # pip/ sits in the venv's site-packages


def venv_python():
    try:
        with open(os.path.join(sys.prefix, "fake-python-version")) as f:
            major, minor = f.read().strip().split(".")[:2]
            return int(major), int(minor)
    except OSError:
        return sys.version_info[:2]


def fail(msg, code=1):
    print(msg, file=sys.stderr)
    sys.exit(code)


def requirements(args):
    names = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-r":
            with open(args[i + 1]) as f:
                for line in f:
                    line = line.split("#", 1)[0].strip()
                    if line:
                        names.append(line)
            i += 2
            continue
        if not a.startswith("-"):
            names.append(a)
        i += 1
    return names


def torch_shim_source():
    for p in ("/usr/lib/python3/dist-packages/torch/__init__.py",):
        if not os.path.exists(p):
            fail("stand-in pip: Debian's python3-torch is missing (%s)" % p)
    configs = glob.glob("/usr/lib/*/cmake/Torch/TorchConfig.cmake")
    if not configs:
        fail("stand-in pip: Debian's libtorch-dev is missing (/usr/lib/*/cmake/Torch/TorchConfig.cmake)")
    return configs[0]


def install_torch(dry_run):
    py = venv_python()
    if py not in TORCH_PYTHONS:
        fail("ERROR: Could not find a version that satisfies the requirement torch>=2.0 (from versions: none)\n"
             "ERROR: No matching distribution found for torch>=2.0\n"
             "(stand-in index: torch %s has wheels for CPython 3.10-3.14; this venv is Python %d.%d)" % ((TORCH,) + py))
    config = torch_shim_source()
    if dry_run:
        say("Would install torch-%s (stand-in)" % TORCH)
        return
    dest = os.path.join(site, "torch")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, "share", "cmake", "Torch"))
    shutil.copy(os.path.join(here, "torch_shim.py"), os.path.join(dest, "__init__.py"))
    with open(os.path.join(dest, "fake-version"), "w") as f:
        f.write(TORCH + "\n")
    # Where a wheel has its libtorch, for the set-up's `lipo -archs` check (bin/lipo answers for it).
    os.makedirs(os.path.join(dest, "lib"))
    with open(os.path.join(dest, "lib", "libtorch_cpu.dylib"), "w") as f:
        f.write("stand-in (scripts/ci/fake-macos): not a Mach-O file; bin/lipo answers for it\n")
    with open(os.path.join(dest, "share", "cmake", "Torch", "TorchConfig.cmake"), "w") as f:
        f.write("# Stand-in for the TorchConfig.cmake of pip's torch wheel (scripts/ci/fake-macos):\n"
                "# Debian's libtorch.\ninclude(\"%s\")\n" % config)
    info = os.path.join(site, "torch-%s.dist-info" % TORCH)
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: torch\nVersion: %s\n" % TORCH)
    say("Successfully installed torch-%s (stand-in: Debian's torch and libtorch)" % TORCH)


def install_matplotlib(dry_run):
    if not os.path.exists(os.path.join(DIST, "matplotlib", "__init__.py")):
        fail("stand-in pip: Debian's python3-matplotlib is missing")
    if dry_run:
        say("Would install matplotlib (stand-in)")
        return
    with open(os.path.join(site, "fake-debian-dist-packages.pth"), "w") as f:
        f.write(DIST + "\n")
    say("Successfully installed matplotlib (stand-in: Debian's)")


QUIET = False


def say(msg):
    if not QUIET:
        print(msg)


def main(argv):
    global QUIET
    QUIET = "--quiet" in argv or "-q" in argv
    args = [a for a in argv if a not in ("--disable-pip-version-check", "--quiet", "-q", "--upgrade", "-U")]
    if not args:
        fail("stand-in pip: no command", 2)
    if args[0] == "show" and args[1:] == ["torch"]:
        if not os.path.isdir(os.path.join(site, "torch-%s.dist-info" % TORCH)):
            fail("WARNING: Package(s) not found: torch")
        print("Name: torch\nVersion: %s\nLocation: %s" % (TORCH, site))
        return
    if args[0] != "install":
        fail("stand-in pip: '%s' is not simulated" % " ".join(argv), 2)
    dry_run = "--dry-run" in args
    for req in requirements(args[1:]):
        name = re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].lower()
        if name == "pip":
            say("Requirement already satisfied: pip (stand-in)")
        elif name == "torch":
            install_torch(dry_run)
        elif name == "matplotlib":
            install_matplotlib(dry_run)
        else:
            fail("stand-in pip: the requirement '%s' is not simulated" % req, 2)


main(sys.argv[1:])

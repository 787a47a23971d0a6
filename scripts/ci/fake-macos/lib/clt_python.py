# The Command Line Tools' python3 3.9 (stand-in, scripts/ci/fake-macos/bin/python3): reports
# version 3.9.6 and runs -c CODE, -m MODULE or a script. Started with -I -S: no site-packages, so
# neither torch nor matplotlib imports, as on a Mac without a venv.
import runpy
import sys

sys.version_info = (3, 9, 6, "final", 0)
sys.version = "3.9.6 (stand-in for the Command Line Tools' python3)"
args = sys.argv[1:]
if not args:
    sys.exit("python3 (stand-in): no interactive mode here")
if args[0] == "-c" and len(args) >= 2:
    sys.argv = ["-c"] + args[2:]
    exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
elif args[0] == "-m" and len(args) >= 2:
    sys.argv = [args[1]] + args[2:]
    runpy.run_module(args[1], run_name="__main__", alter_sys=True)
elif not args[0].startswith("-"):
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
else:
    sys.exit("python3 (stand-in): option not simulated: " + args[0])

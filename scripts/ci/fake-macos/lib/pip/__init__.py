# Stand-in pip of the simulated Mac (scripts/ci/fake-macos): see __main__.py.

"""`python -m cachetui` runs the same entry point as the console script."""

import os
import sys

# `python -m` put the working directory first on sys.path, where a `json.py` or `textual/` would be
# imported in place of the installed one: left off, as the console script and `python -P` leave it.
# (A `cachetui/` folder there has run already, before this file: that is why docs/serve.md says to start
# `cachetui`, or `python -P -m cachetui`, in a directory others can write to.)
if not sys.flags.safe_path and sys.path and sys.path[0] == os.getcwd():
    del sys.path[0]

from cachetui.cli.main import main  # after the working directory is off the path

raise SystemExit(main())

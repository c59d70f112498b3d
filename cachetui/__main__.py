"""`python -m cachetui` runs the same entry point as the console script."""

from cachetui.cli.main import main

raise SystemExit(main())

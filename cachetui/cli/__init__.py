"""Command-line entry points: `cachetui [PATH...]`, `cachetui check`, `cachetui query`."""

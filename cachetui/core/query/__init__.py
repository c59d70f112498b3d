"""Everything that reads a finished corpus: resolving values, matching specs, answers, diffs, commands."""

"""The headless core: loading, the model, facets, search and queries.

Nothing in here imports Textual or formats for a screen (see the import-linter
contracts in pyproject.toml); the app, the CLI and the benchmarks share it.
"""

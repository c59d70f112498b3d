"""Presentation helpers shared by the CLI and the app: plain strings, no Textual."""

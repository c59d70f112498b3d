"""The user's config.toml: each setting declared once, read and checked, and the keys a keymap may name."""

"""Modal dialogs: each asks one thing and is awaited with `push_screen_wait`."""

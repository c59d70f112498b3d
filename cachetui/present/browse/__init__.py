"""The browser's state without Textual: where the user is, the answer pipeline, and the keys' action table."""

"""The Textual browser. Widgets receive model data; they never parse documents."""

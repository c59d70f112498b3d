"""Widgets of the browser screen; each receives model data and posts messages up."""

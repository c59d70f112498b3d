"""Screens and dialogs of the browser."""

"""The details pane's sections in rows of words: a binary's provenance, a wanted node beside its nearest."""

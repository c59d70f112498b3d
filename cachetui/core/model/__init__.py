"""Records as sources hand them over, the column store (`Corpus`) and the builders that fill it."""

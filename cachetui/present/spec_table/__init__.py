"""The spec table without Textual: its rows and cells, which columns fit a width, what tells rows apart."""

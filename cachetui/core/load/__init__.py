"""Where specs come from: one module per kind of source, the warm cache, and the load that joins them."""

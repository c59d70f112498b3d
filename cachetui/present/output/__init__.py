"""What the commands print and the browser exports: every format through the inert writers."""

"""cachetui: a keyboard-driven terminal browser for Spack binary build caches."""

__version__ = "0.1.0"

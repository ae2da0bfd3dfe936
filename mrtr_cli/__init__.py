"""mrtr: a command-line inspector for MCP Multi Round-Trip Requests."""

__version__ = "0.1.0"

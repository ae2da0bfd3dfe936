"""Which server a run talks to: resolved from the flags, an mcpServers file, `--demo` or a
transcript's entry (target.py), one class per kind, which opens its transport
(target_kinds.py), and the mcpServers file read and checked against its schema
(mcp_config.py, mcp_config.schema.json).
"""

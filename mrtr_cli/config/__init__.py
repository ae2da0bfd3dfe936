"""mrtr's configuration folder (config_dir.py: where it is, its folders and their modes) and
the task ids kept in it per server URL (kept_tasks.py).
"""

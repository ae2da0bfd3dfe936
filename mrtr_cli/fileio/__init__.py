"""Files read and written whole: the files a user names, bounded and UTF-8 (files.py), YAML in
(yaml_loader.py) and out (yaml_dumper.py, with yaml_emitters.py), and JSON with comments
read as spans of its text (jsonc_spans.py).
"""

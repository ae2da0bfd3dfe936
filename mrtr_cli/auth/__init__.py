"""Logging in to servers behind OAuth, and keeping their tokens.

Nothing here is imported when mrtr starts: only a server that asks for authorization, or
`mrtr auth ...`, loads this package. `store.py` keeps logins on disk, in the folder
`config_dir.py` names; `oauth.py` runs the authorization flow (it alone imports authlib).
"""

"""`mrtr proxy`: stand between a real client (a host) and a server, pass every message through
unchanged, and hand what crossed to the watchers (the timeline, the judge of the client, the recorder)."""

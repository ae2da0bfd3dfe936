"""`python -m mrtr_cli`."""

from mrtr_cli.entry import console

console()

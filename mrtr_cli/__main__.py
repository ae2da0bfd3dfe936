"""`python -m mrtr_cli`."""

import sys

from mrtr_cli.cli import main

sys.exit(main())

"""`python -m mrtr_cli`."""

import sys

from mrtr_cli.entry import main

sys.exit(main())

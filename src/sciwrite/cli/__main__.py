"""`python -m sciwrite.cli`."""

import sys

from sciwrite.cli import main

sys.exit(main())

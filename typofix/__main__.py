"""`python -m typofix` runs the `typofix` command line."""

from typofix.apps.cli import main
from typofix.files.exits import leave

leave(main())

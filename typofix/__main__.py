"""`python -m typofix` runs the `typofix` command line."""

from typofix.apps.cli import main

raise SystemExit(main())

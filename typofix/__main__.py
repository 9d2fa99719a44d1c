"""`python -m typofix` runs the `typofix` command line."""

from typofix.cli import main

raise SystemExit(main())

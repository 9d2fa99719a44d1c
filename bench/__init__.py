"""typofix's benchmark harness: typofix against the spell checkers people use.

Run it from the repository root with ``python -m bench.run`` (``make bench``).
Not part of the installed package: it imports peers that only the ``bench``
extra and the Debian packages provide.
"""

"""Binary or text, told as git tells it: a NUL byte in the first `SNIFF` bytes. One rule for `typofix check`
(files it walks or is given, pipes) and `typofix correct` (a file or stream it passes through unchanged)."""

from __future__ import annotations

SNIFF = 8192  # bytes read to tell binary from text


def is_binary_data(head: bytes) -> bool:
    """Whether data that starts with `head` is binary: a NUL byte in its first `SNIFF` bytes."""
    return b"\0" in head[:SNIFF]

"""Memory the engine has freed, given back to the system between search batches."""

from __future__ import annotations

import ctypes


def _malloc_trim():
    """glibc's `malloc_trim`, or None where the C library has none (``musl``, macOS)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


def release_freed_memory() -> None:
    """Give the pages of memory freed by a batch back to the system (glibc's `malloc_trim`: free chunks only,
    nothing in use). onnxruntime allocates and frees buffers of every size at every decoder step (its arena is
    off, see `typofix.engine.onnx_stepper`); glibc raises its mmap threshold past the largest freed, so later
    ones come from the heap, where they stayed resident among live objects and grew with every batch. What it
    saves and what it costs (the pages the next batch faults in again) are measured in docs/engine.md."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)

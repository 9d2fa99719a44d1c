"""The programs' policy for the C allocator: memory freed during a long run goes back to the system.

A long run (`typofix check` over a 50 MB file, `correct --file`, an editor's language server) allocates and frees
buffers of a few hundred kB to a few MB all the time: numpy arrays of encoder outputs and scores, onnxruntime's
tensors. glibc serves a block above its mmap threshold with its own mapping, returned to the system when freed,
but that threshold starts at 128 kB and rises to the size of every such block freed (up to 32 MB), so after the
first batches the buffers come from the heap, whose freed memory is returned only from its top: the process's
resident memory kept growing with the input (a 10 MB file checked at 767 MB peak RSS). A threshold fixed at
1 MB (fixing it also ends its rise) keeps the large buffers in mappings of their own: the same check peaks at
542 MB, at the same CPU time (docs/check.md). It is the process's policy, so the programs set it (`typofix`,
`typofix-ispell`), never the library: a program that imports typofix keeps its own.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
MMAP_THRESHOLD = 1 << 20  # bytes


def return_freed_memory() -> None:
    """Set the allocator's mmap threshold (`MMAP_THRESHOLD`) where the C library is glibc, for this process and
    (through glibc's `MALLOC_MMAP_THRESHOLD_`) the worker processes it starts (`--jobs`); elsewhere nothing. A
    threshold the user set in the environment is glibc's already, and kept."""
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    if mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1:  # 1: glibc took it (musl's stub answers 0)
        os.environ["MALLOC_MMAP_THRESHOLD_"] = str(MMAP_THRESHOLD)

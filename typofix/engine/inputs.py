"""The engine API's one check of the text it is given: `Corrector`'s public methods take a `str` (a text, a
word) or a list of them, and anything else is a TypeError that names the method, the argument, the type it
takes and the type it got, raised before the engine trips over it deep inside (a regular expression on bytes,
`None.lower()`), and never a string taken for a list of one-letter texts."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TypeVar

Method = TypeVar("Method", bound=Callable)


def takes_text(method: Method) -> Method:
    """`method(self, text, ...)` raises a clear TypeError unless `text` (its first argument) is a str."""
    return _checking(method, _text)


def takes_texts(method: Method) -> Method:
    """`method(self, texts, ...)` raises a clear TypeError unless `texts` (its first argument) is a list (any
    iterable but a string) of str; an iterable that is not a list or tuple (a generator, an array) is read into
    a list first."""
    return _checking(method, _texts)


def _checking(method: Method, check: Callable) -> Method:
    """`method` with its first argument, given by position or by name, passed through `check` first."""
    name = list(inspect.signature(method).parameters)[1]  # the one after self
    where = f"{method.__qualname__}(): {name}"

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        if args:
            args = (check(args[0], where), *args[1:])
        elif name in kwargs:
            kwargs[name] = check(kwargs[name], where)
        return method(self, *args, **kwargs)

    return checked


def _text(value, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, got {_kind(value)}")
    return value


def _texts(value, where: str) -> list[str] | tuple[str, ...]:
    if isinstance(value, (str, bytes, bytearray)) or not _iterable(value):
        hint = " (for one, pass a list of one)" if isinstance(value, str) else ""
        raise TypeError(f"{where} must be a list of str, got {_kind(value)}{hint}")
    texts = value if isinstance(value, (list, tuple)) else list(value)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{where} must be a list of str: item {i} is {_kind(text)}")
    return texts


def _iterable(value) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _kind(value) -> str:
    """How a message names what came: None, or its type, with a hint for bytes."""
    if value is None:
        return "None"
    if isinstance(value, (bytes, bytearray)):
        return f"{type(value).__name__} (decode it first, e.g. data.decode('utf-8'))"
    return type(value).__name__

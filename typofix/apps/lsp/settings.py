"""What an LSP client may set, in `initializationOptions` or as the `typofix` section of its workspace
configuration (both the same object):

* `preset`: "default" or "fast" (the smaller bundled model);
* `confidence`: the check's threshold on a finding's confidence (how far the correction's score beats the
  word's own; default `typofix check`'s, 2.0): lower reports more;
* `languages`: the language ids to check (["markdown", "python"]); absent or null: every document the client
  sends (clients choose which file types they attach a server to);
* `words`: words never reported, beside the personal list and the --words files.

A value of the wrong type or out of range is left at its default and named in `problems`, which the server
logs to the client: a typo in a config file must not stop the server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from typofix.apps.cli.check import MIN_CONFIDENCE

PRESETS = ("default", "fast")


@dataclass(frozen=True)
class ServerSettings:
    preset: str = "default"
    confidence: float = MIN_CONFIDENCE
    languages: frozenset[str] | None = None
    words: tuple[str, ...] = ()

    def checks(self, language_id: str | None) -> bool:
        """Whether a document of `language_id` is checked."""
        return self.languages is None or (language_id or "") in self.languages


@dataclass
class ReadSettings:
    settings: ServerSettings
    problems: list[str] = field(default_factory=list)


def read_settings(options, base: ServerSettings = ServerSettings()) -> ReadSettings:
    """The settings `options` (a JSON object, or None) set over `base`, and what was wrong in it."""
    if options is None:
        return ReadSettings(base)
    if not isinstance(options, dict):
        return ReadSettings(base, [f"typofix settings must be an object, got {type(options).__name__}"])
    values, problems = {}, []
    preset = options.get("preset")
    if preset is not None:
        if preset in PRESETS:
            values["preset"] = preset
        else:
            problems.append(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    confidence = options.get("confidence")
    if confidence is not None:
        if isinstance(confidence, (int, float)) and not isinstance(confidence, bool) and math.isfinite(confidence):
            values["confidence"] = float(confidence)
        else:
            problems.append(f"confidence must be a number, got {confidence!r}")
    if "languages" in options:
        languages = options["languages"]
        if languages is None:
            values["languages"] = None
        elif isinstance(languages, list) and all(isinstance(x, str) for x in languages):
            values["languages"] = frozenset(languages)
        else:
            problems.append(f"languages must be a list of language ids, got {languages!r}")
    words = options.get("words")
    if words is not None:
        if isinstance(words, list) and all(isinstance(w, str) and w.strip() and len(w.split()) == 1 for w in words):
            values["words"] = tuple(w.strip() for w in words)
        else:
            problems.append(f"words must be a list of single words, got {words!r}")
    unknown = sorted(set(options) - {"preset", "confidence", "languages", "words"})
    if unknown:
        problems.append(f"unknown typofix settings: {', '.join(map(str, unknown))}")
    base_values = {name: getattr(base, name) for name in ("preset", "confidence", "languages", "words")}
    return ReadSettings(ServerSettings(**{**base_values, **values}), problems)

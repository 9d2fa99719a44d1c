"""typofix: corrects misspelled English words with a character-level LSTM encoder-decoder and Bahdanau attention.

The public surface, imported lazily (so `import typofix` and the CLI's start-up pay for nothing until used):
`Corrector` (load a model, correct text, suggest, explain, trace), `DecodingSettings` (every knob, the presets),
`Suggestion` (a word's correction with its score and evidence) and `Correction` (a change to a text). Everything
else is the layers' own business (docs/architecture.md).
"""

from importlib import import_module

__version__ = "0.1.0"
__all__ = ["Correction", "Corrector", "DecodingSettings", "Suggestion", "__version__"]

_PUBLIC = {"Corrector": "typofix.engine.corrector", "DecodingSettings": "typofix.engine.settings",
           "Suggestion": "typofix.engine.results", "Correction": "typofix.engine.results"}


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'typofix' has no attribute {name!r}")

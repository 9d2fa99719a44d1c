"""typofix: corrects misspelled English words with a character-level LSTM encoder-decoder and Bahdanau attention."""

__version__ = "0.1.0"
__all__ = ["Corrector", "DecodingSettings", "__version__"]


def __getattr__(name: str):
    # Lazy, so `import typofix` (and the CLI's start-up) does not pay for torch until a model is needed.
    if name == "Corrector":
        from typofix.engine.corrector import Corrector

        return Corrector
    if name == "DecodingSettings":
        from typofix.engine.settings import DecodingSettings

        return DecodingSettings
    raise AttributeError(f"module 'typofix' has no attribute {name!r}")

"""Every knob of the engine in one place (`typofix.engine.settings`): each field's range or choices, declared
once in its metadata, is checked on construction with a message naming the field; the presets are settings
like any other, and a copy changes only what it is given."""

from __future__ import annotations

import dataclasses
import math

import pytest

from typofix.engine.settings import PRESETS, DecodingSettings, out_of_range


def outside(spec):
    """Values just outside a field's range or choices (none for a field without either)."""
    meta = spec.metadata
    values = []
    if meta["choices"] is not None:
        values.append("nonesuch")
    if meta["low"] is not None:
        step = 1 if isinstance(spec.default, int) else 0.5
        values.append(meta["low"] if meta["low_open"] else type(spec.default)(meta["low"] - step))
    if meta["high"] is not None:
        values.append(type(spec.default)(meta["high"] + 1))
    return values


CHECKED = [(spec, value) for spec in dataclasses.fields(DecodingSettings) if not isinstance(spec.default, bool)
           for value in outside(spec)]


@pytest.mark.parametrize("spec, value", CHECKED, ids=[f"{s.name}={v}" for s, v in CHECKED])
def test_a_value_outside_a_fields_range_is_refused_naming_the_field(spec, value):
    assert out_of_range(spec, spec.default) is None  # the default is in range
    with pytest.raises(ValueError, match=f"^{spec.name} must be "):
        DecodingSettings(**{spec.name: value})


@pytest.mark.parametrize("overrides, message", [
    ({"two_edit_candidates": -1}, "two_edit_candidates must be at least 0, got -1"),
    ({"one_edit_candidates": -1}, "one_edit_candidates must be at least 0, got -1"),
    ({"sound_candidates": -1}, "sound_candidates must be at least 0, got -1"),
    ({"alpha": -0.5}, "alpha must be a number >= 0, got -0.5"),
    ({"context_mix": 0.0}, r"context_mix must be in \(0, 1\], got 0.0"),
    ({"min_confidence": math.nan}, "min_confidence must be a number, got nan"),
    ({"bundled_model": "huge"}, "bundled_model must be one of default, fast, got 'huge'"),
    ({"scorer": "learned"}, "scorer must be one of fitted, hand"),
    ({"rerank_table": "../elsewhere/rerank.json"}, "rerank_table must name a .json table of data/"),
])
def test_the_messages_say_what_is_wrong(overrides, message):
    with pytest.raises(ValueError, match=message):
        DecodingSettings(**overrides)


def test_presets_and_copies():
    assert DecodingSettings.preset("default") == DecodingSettings() == PRESETS["default"]
    fast = DecodingSettings.preset("fast", beam=4, min_confidence=None)  # None: keep the preset's value
    assert fast.bundled_model == "fast" and fast.rerank_table != DecodingSettings().rerank_table
    assert fast.beam == 4 and fast.min_confidence == PRESETS["fast"].min_confidence
    assert fast.with_() == fast and fast.with_(beam=None) == fast
    for preset in PRESETS.values():
        assert DecodingSettings(**preset.as_dict()) == preset
    with pytest.raises(ValueError, match="unknown preset 'huge'; choose from " + ", ".join(PRESETS)):
        DecodingSettings.preset("huge")
    with pytest.raises(ValueError, match="unknown decoding setting"):
        fast.with_(beam_width=3)
    with pytest.raises(ValueError, match="beam must be at least 1"):
        fast.with_(beam=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.beam = 2

"""typofix.words.language: English text of every kind scores high, other languages low, and text that can not
tell (no letters, a word that is a word in both) gets its prior or stays near it."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from typofix.words import language
from typofix.words.language import EnglishIdentifier, english_probabilities, english_probability, sentence_around

ENGLISH = [
    # prose
    "The committee will meet again next week to discuss the budget for the coming year.",
    "She left the keys on the kitchen table before walking down to the station.",
    # technical: commands, options, paths, numbers
    "Run make install, then pass --verbose to see every file copied into /usr/local/bin.",
    "If the daemon cannot bind to port 8080, check that no other service is listening on it.",
    "Set LOG_LEVEL=debug in the unit file and restart it with systemctl restart myapp.service",
    # chat: abbreviations, lower case, no apostrophes, emoji
    "lol ok im heading out now, ttyl 👋",
    "can u send me the link again? cant find it in slack rn",
    "brb grabbing coffee ☕ then we can sync on the release",
]
FOREIGN = {
    "de": ["Die Datei wurde nicht gefunden, bitte überprüfen Sie den Pfad.",
           "Wir treffen uns morgen früh vor dem Bahnhof.",
           "Das Programm konnte die Verbindung zum Server nicht herstellen."],
    "fr": ["Le fichier de configuration est introuvable dans ce répertoire.",
           "Nous avons mangé une tarte aux pommes hier soir.",
           "Impossible de se connecter au serveur, veuillez réessayer plus tard."],
    "es": ["No se pudo abrir el archivo porque no existe.",
           "Mañana vamos a la playa con mis primos.",
           "El servidor rechazó la conexión, inténtelo de nuevo más tarde."],
    # languages the dev set lacks: the restricted model must still have somewhere to put them
    "it": ["Impossibile aprire il file perché non esiste."],
    "nl": ["Het bestand kon niet worden geopend omdat het niet bestaat."],
    "sv": ["Filen kunde inte öppnas eftersom den inte finns."],
    "pt": ["Não foi possível abrir o arquivo porque ele não existe."],
    "pl": ["Nie można otworzyć pliku, ponieważ nie istnieje."],
}


@pytest.mark.parametrize("text", ENGLISH)
def test_english_sentences_of_every_kind_score_high(text):
    assert english_probability(text) > 0.95


@pytest.mark.parametrize("text", [t for texts in FOREIGN.values() for t in texts])
def test_sentences_in_other_languages_score_low(text):
    assert english_probability(text) < 0.05


@pytest.mark.parametrize("text", ["", "   ", "42", "3.14 -- 2,718", "👍", "😂😂 🎉", "!!! ???", "-> => |"])
def test_text_without_letters_gets_the_prior_exactly(text):
    assert english_probability(text) == 0.5
    assert english_probability(text, prior=0.9) == pytest.approx(0.9)
    assert english_probability(text, prior=0.1) == pytest.approx(0.1)


@pytest.mark.parametrize("word", ["die", "also", "man", "war", "hat", "fast", "hand", "gift", "kind", "plus"])
def test_a_word_of_english_and_german_alike_stays_near_the_prior(word):
    assert 0.25 < english_probability(word) < 0.85


def test_evidence_grows_with_the_span():
    sentence = "Please restart the server after you change the configuration file."
    words = sentence.split()
    first = english_probability(words[0])
    half = english_probability(" ".join(words[:len(words) // 2]))
    assert abs(first - 0.5) < abs(half - 0.5) < abs(english_probability(sentence) - 0.5)


def test_the_prior_moves_a_short_span_but_not_a_sentence():
    short = "fast"
    low, mid, high = (english_probability(short, prior=p) for p in (0.1, 0.5, 0.9))
    assert low < mid < high
    assert high - low > 0.5
    german = FOREIGN["de"][0]
    assert english_probability(german, prior=0.99) < 0.05
    assert english_probability(ENGLISH[0], prior=0.01) > 0.95


def test_evidence_is_the_log_odds_without_a_prior():
    identifier = language.identifier()
    assert identifier.evidence("") == 0.0
    assert identifier.evidence(ENGLISH[0]) > 5 > -5 > identifier.evidence(FOREIGN["fr"][0])


def test_a_short_line_takes_the_language_of_its_neighbours():
    german = ["Die Konfiguration wurde erfolgreich gespeichert.", "fast", "Bitte starten Sie das Programm neu."]
    english = ["The configuration was saved successfully.", "fast", "Please restart the program now."]
    assert english_probabilities(german)[1] < 0.05 < 0.95 < english_probabilities(english)[1]
    # a line of five words or more is scored alone, whatever is around it
    mixed = [FOREIGN["es"][0], ENGLISH[0], FOREIGN["fr"][0]]
    assert english_probabilities(mixed) == pytest.approx([english_probability(t) for t in mixed])
    assert english_probabilities([]) == []
    assert english_probabilities(["fast"]) == [english_probability("fast")]


def test_a_word_takes_the_language_of_its_sentence_not_its_line():
    line = "We flew to Lyon on Friday. Nous avons mangé une bonne soupe à midi. Then we left: ok?"
    french = line.index("mangé")
    assert sentence_around(line, french) == "Nous avons mangé une bonne soupe à midi."
    assert english_probability(sentence_around(line, french)) < 0.05 < 0.95 < english_probability(
        sentence_around(line, line.index("Friday")))
    # a sentence of fewer than three words takes its neighbours on the line, nearest first
    assert sentence_around(line, line.index("ok")) == "Then we left: ok?"
    assert sentence_around("Merci! The rest is in English.", 0) == "Merci! The rest is in English."
    assert sentence_around("No sentence ends here", 3) == "No sentence ends here"
    assert sentence_around("", 0) == ""


def test_one_identifier_per_process_and_english_is_required():
    assert language.identifier() is language.identifier()
    with pytest.raises(ValueError):
        EnglishIdentifier(languages=("de", "fr"))
    assert "en" in language.LANGUAGES and len(set(language.LANGUAGES)) == len(language.LANGUAGES)


# Both scripts of Serbian (two columns of one label in py3langid), other scripts, no letters, one word.
SAMPLES = [ENGLISH[0], ENGLISH[5], FOREIGN["de"][0], FOREIGN["pl"][0], "Datoteka nije pronađena.",
           "Датотека није пронађена.", "文件未找到。", "ファイルが見つかりません", "ok", "", "42 👍"]


def test_the_cached_model_scores_exactly_as_py3langid_does(tmp_path, monkeypatch):
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    plain = LanguageIdentifier.from_model_file(MODEL_FILE)
    plain.set_languages(list(language.LANGUAGES))
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(tmp_path))
    built = language.RestrictedModel.cached(language.LANGUAGES)  # built, and saved
    mapped = language.RestrictedModel.cached(language.LANGUAGES)  # read back from the cache
    assert isinstance(mapped.arrays()["nextmove"].base, np.memmap)
    assert isinstance(mapped.arrays()["ptc"].base, np.memmap)
    for model in (built, mapped):
        identifier = model.identifier()
        for text in SAMPLES:
            assert identifier.rank(text) == plain.rank(text), text


def test_inconsistent_arrays_are_refused_so_the_cache_rebuilds_them():
    arrays = language.RestrictedModel.build(("en", "de", "fr")).arrays()
    language.RestrictedModel.from_arrays(arrays)
    for key, cut in [("pc", slice(1, None)), ("output", slice(1, None)), ("nextmove", slice(0, -1)),
                     ("rowbase", slice(0, 0))]:
        with pytest.raises(ValueError):
            language.RestrictedModel.from_arrays({**arrays, key: arrays[key][cut]})
    with pytest.raises(ValueError):
        language.RestrictedModel.from_arrays({**arrays, "ptc": arrays["ptc"][:10]})  # features past the table


def test_a_second_process_reads_the_cache_not_py3langids_model(tmp_path):
    first = "import typofix.words.language as l; print(l.english_probability('Die Datei wurde nicht gefunden.'))"
    second = ("import py3langid.langid as m, typofix.words.language as l\n"
              "def refuse(*args, **kwargs):\n    raise AssertionError('read the model file')\n"
              "m.LanguageIdentifier.from_model_file = refuse\n"
              "print(l.english_probability('Die Datei wurde nicht gefunden.'))")
    env = {**os.environ, "TYPOFIX_CACHE_DIR": str(tmp_path)}
    built = subprocess.run([sys.executable, "-c", first], env=env, check=True, capture_output=True, text=True)
    read = subprocess.run([sys.executable, "-c", second], env=env, check=True, capture_output=True, text=True)
    assert built.stdout == read.stdout


def test_importing_the_module_loads_no_model():
    code = ("import sys, typofix, typofix.words.language as l; "
            "assert 'py3langid' not in sys.modules, 'imported eagerly'; "
            "l.english_probability('hello there, how are you?'); assert 'py3langid' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80), st.floats(min_value=0.0, max_value=1.0))
def test_any_text_and_prior_give_a_probability(text, prior):
    p = english_probability(text, prior)
    assert 0.0 <= p <= 1.0

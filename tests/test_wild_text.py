"""Text as it is found, through the real `typofix correct -` (the bundled model and misspelling detector): a
technical note, a command line and code, chat, and sentences in other languages. Every misspelling is fixed
and nothing else changes, but the pronoun's capital and a contraction's apostrophe."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# (as written, as it must come back)
TEXTS = [
    # the issue's own sentences: nothing in them is misspelt
    ("Install the deps with npm or yarn, then run pytest. The config lives in a yaml file under src.", None),
    ("Build gnutls with gcc: make DESTDIR=stage install; const int x = 1;", None),
    ("lol idk omg btw thx pls, yesterday i went home and i think im tired",
     "lol idk omg btw thx pls, yesterday I went home and I think I'm tired"),
    ("Je ne sais pas pourquoi il est parti. Ich möchte einen Kaffee, bitte.", None),
    # our own, of the same kinds
    ("Clone the repo, run cargo build and copy the binary to ~/bin; kubectl and helm do the rest.", None),
    ("Run pip install uvicorn, then set LOG_LEVEL=debug and restart nginx with systemctl.", None),
    ("Teh server was restarted becuase the disk was full.", "The server was restarted because the disk was full."),
    ("haha ikr, tbh i'm not sure, brb gotta feed the cat", "haha ikr, tbh I'm not sure, brb gotta feed the cat"),
    ("we shoud meet tomorow, i'm free after lunch", "we should meet tomorrow, I'm free after lunch"),
    ("Der Server startet nicht, weil die Datei fehlt. La configuración se guarda en el directorio de usuario.",
     None),
    ("Il faut redémarrer le service après la mise à jour du paquet.", None),
    # two languages on one line: each sentence is left alone or corrected as it reads
    ("We flew to Lyon on Friday. Nous avons mangé une bonne soupe à midi. Then we recieved the keys.",
     "We flew to Lyon on Friday. Nous avons mangé une bonne soupe à midi. Then we received the keys."),
    ("Hola, ¿dónde está la estación de tren? i beleive it is near the river.",
     "Hola, ¿dónde está la estación de tren? I believe it is near the river."),
]


@pytest.fixture(scope="module")
def corrected() -> dict[str, str]:
    """Each text, corrected by one run of the CLI, one text a line. (No unknown word is in two of them, so the
    stream's one document counts each word as each text alone would.)"""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "typofix", "correct", "-"], input="".join(t + "\n" for t, _ in TEXTS),
                          text=True, capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")[:-1]
    assert len(lines) == len(TEXTS)
    return {text: line for (text, _), line in zip(TEXTS, lines)}


@pytest.mark.parametrize("text, expected", TEXTS, ids=[t[:30] for t, _ in TEXTS])
def test_misspellings_are_fixed_and_nothing_else_changes(corrected, text, expected):
    assert corrected[text] == (expected or text)

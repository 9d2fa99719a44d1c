import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from typofix.words.lexicon import AcceptedWords, Lexicon, LexiconError, bundled_accepted_path, bundled_words_path

BUILD_ACCEPTED = Path(__file__).resolve().parents[1] / "data" / "build_accepted.py"


def test_bundled_list_loads_with_its_counts():
    lexicon = Lexicon.from_tsv()
    assert len(lexicon) >= 50_000
    assert "the" in lexicon and "teh" not in lexicon
    assert lexicon.log_prior("the") > lexicon.log_prior("receive") > lexicon.log_prior("recieve")
    assert bundled_words_path().name == "words.tsv"


def test_log_priors_are_log_prior_of_each_word_read_in_place_or_from_the_dict(tmp_path, monkeypatch):
    """The batched lookup gives `log_prior`'s floats, from the index cache's arrays (read in place, however many
    are asked) and from the dict (never cached)."""
    words = ["the", "receive", "recieve", "", "caf\u00e9", "zzzzqx", "a" * 300, "the"]
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(tmp_path / "cache"))
    Lexicon.from_tsv()  # cold: builds and saves the index
    in_place = Lexicon.from_tsv()
    assert in_place.log_priors(words) == [in_place.log_prior(w) for w in words]
    assert not isinstance(in_place.counts, dict)  # looked up in place: no dict made
    assert in_place.log_priors(["the"] * 3000) == [in_place.log_prior("the")] * 3000
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", "")
    from_dict = Lexicon.from_tsv()
    assert from_dict.log_priors(words) == [from_dict.log_prior(w) for w in words] == in_place.log_priors(words)


def test_trie_knows_prefixes_and_word_ends():
    trie = Lexicon({"car": 3, "cart": 1, "cat": 2}).trie
    assert trie.walk("") == 0
    car = trie.walk("car")
    assert car > 0 and trie.is_word[car]
    assert not trie.is_word[trie.walk("ca")]
    assert set(trie.children(trie.walk("ca"))) == {"r", "t"}
    assert trie.spell(trie.walk("cart")) == "cart"
    assert trie.child([car, car], [ord("t"), ord("x")]).tolist() == [trie.walk("cart"), -1]
    assert trie.walk("cab") == -1
    assert len(trie) == 6  # "", c, ca, car, cart, cat


def test_min_count_filters(tmp_path):
    path = tmp_path / "w.tsv"
    path.write_text("common\t100\nrare\t1\n")
    assert set(Lexicon.from_tsv(path, min_count=2).counts) == {"common"}


@pytest.mark.parametrize("content, message", [
    ("word 12\n", "expected 'word<TAB>count'"),
    ("word\tmany\n", "expected 'word<TAB>count'"),
    ("Word\t3\n", "lowercase"),
    ("", "empty"),
])
def test_malformed_lists_name_the_problem(tmp_path, content, message):
    path = tmp_path / "w.tsv"
    path.write_text(content)
    with pytest.raises(LexiconError, match=message):
        Lexicon.from_tsv(path)


def test_missing_list_is_a_clear_error(tmp_path):
    with pytest.raises(LexiconError, match="word list not found"):
        Lexicon.from_tsv(tmp_path / "absent.tsv")


@pytest.mark.parametrize("max_edits", [0, 1, 2])
def test_trie_within_finds_exactly_the_words_in_reach(max_edits):
    """Against brute force: the optimal-string-alignment distance to every listed word."""
    from typofix.words.distance import osa_distance

    lexicon = Lexicon.from_tsv()
    words = sorted(lexicon.counts)[::40]  # ~2,000 words of every length and letter
    small = Lexicon({w: 1 for w in words})
    for typo in ["recieve", "teh", "acommodate", "a", "abstracts", "zzz", "tpyo"]:
        expected = {w for w in words if osa_distance(typo, w) <= max_edits}
        found = small.trie.within(typo, max_edits)
        assert sorted(found) == sorted(expected), typo
        assert len(found) == len(set(found))


def test_trie_within_counts_a_swap_as_one_edit():
    trie = Lexicon({"the": 5, "then": 1, "ten": 1}).trie
    assert set(trie.within("teh", 1)) == {"the", "ten"}
    assert trie.within("hte", 0) == []


def test_accepted_words_are_real_words_in_the_case_they_are_written():
    accepted = AcceptedWords.load()
    assert bundled_accepted_path().name == "accepted.txt.gz"
    assert len(accepted) > 80_000
    for word in ["foo", "ls", "acknowledgments", "afterward", "emoji", "Emoji", "html", "NASA", "colour", "color",
                 "Sam", "SAM", "same", "The", "THE", "ascii", "nasa"]:
        assert word in accepted, word
    # sam, dat and mit are listed only as names or acronyms (Sam, DAT, MIT): written in lower case they are far
    # more often typos of same, that and might.
    for typo in ["recieve", "teh", "definately", "Teh", "RECIEVE", "sam", "dat", "mit"]:
        assert typo not in accepted, typo


def test_an_all_caps_token_is_accepted_where_a_listed_word_upper_cased_is_it(tmp_path):
    """Mixed case (McDonald, GitHub), Title, lower and UPPER case listed words, and terms accepted as written:
    their all-caps forms are accepted, and no other all-caps token is."""
    path, terms = tmp_path / "a.txt.gz", tmp_path / "terms.txt.gz"
    listed = ["apple", "Paris", "NASA", "McDonald", "GitHub", "LPNs", "iPhone", "In", "in"]
    path.write_bytes(gzip.compress("\n".join(listed).encode() + b"\n"))
    terms.write_bytes(gzip.compress("guid\tcased\nnginx\nGmbH\tcased\n".encode()))
    (tmp_path / "none.txt.gz").write_bytes(gzip.compress(b""))
    accepted = AcceptedWords.load(path, names=tmp_path / "none.txt.gz", terms=terms)
    upper = {w.upper() for w in listed} | {"GUID", "GMBH", "NGINX"}
    tokens = upper | {w.upper() + "S" for w in listed} | {"MCDONALDS", "IPHONES", "GUIDE", "XYZ", "PARISS"}
    for token in tokens:
        assert (token in accepted) == (token in upper), token
    assert "guid" not in accepted and "Mcdonald" not in accepted and "mcdonald" not in accepted
    assert accepted.capitalised == ["Paris", "NASA", "McDonald", "GitHub", "LPNs", "iPhone"]
    assert list(accepted.names) == []


def test_accepted_words_answer_alike_from_the_index_cache_and_without_one(tmp_path, monkeypatch):
    """The dictionary's words, acronyms, upper-cased forms, capitalised words, case forms and the names: read in
    place from the index cache (cold, then warm) they answer as read afresh with the cache off."""
    tokens = ["receive", "Receive", "RECEIVE", "recieve", "NASA", "nasa", "Nasa", "html", "HTML", "Monday", "monday",
              "MONDAY", "McDonald", "MCDONALD", "Mcdonald", "GitHub", "GITHUB", "github", "Sam", "sam", "SAM", "In",
              "guid", "GUID", "nginx", "NGINX", "unhappiness", "Unhappiness", "colour", "Colour", "ascii", "xyzzy"]

    def answers():
        accepted = AcceptedWords.load()
        cased = accepted.case_forms
        return ([t in accepted for t in tokens], [accepted.listed_as(t) for t in tokens], accepted.capitalised,
                [cased.get(t.lower()) for t in tokens], list(accepted.names[:50]), len(accepted.names))

    monkeypatch.setenv("TYPOFIX_CACHE_DIR", "")
    want = answers()
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(tmp_path / "cache"))
    assert answers() == want and answers() == want


def test_accepted_words_looked_up_together_answer_as_one_at_a_time(tmp_path, monkeypatch):
    """Every case rule, the terms, the user's words, derived words, apostrophes, other scripts, very long and
    empty tokens: `contains_many` and `listed_as_many` answer as `in` and `listed_as` of each, read in place from
    the index cache (cold, warm) and without it, with no set of the dictionary built."""
    tokens = ["receive", "Receive", "RECEIVE", "recieve", "NASA", "nasa", "Nasa", "html", "HTML", "Monday", "monday",
              "MONDAY", "McDonald", "MCDONALD", "Mcdonald", "GitHub", "GITHUB", "github", "Sam", "sam", "SAM", "In",
              "in", "IN", "guid", "GUID", "Guid", "nginx", "NGINX", "Nginx", "unhappiness", "Unhappiness",
              "UNHAPPINESS", "reuploaded", "unsharable", "untill", "don't", "Don't", "o'clock", "naïve", "Naïve",
              "NAÏVE", "café", "İstanbul", "straße", "STRASSE", "x" * 200, "a" * 50 + "ness", "", "'", "A", "a", "I",
              "Typofix", "typofix", "TYPOFIX", "tyPofix", "\udcff", "apple\x00", "ǅemal", "ǄEMAL"]
    lexicon = Lexicon.from_tsv()
    for cache in ("", str(tmp_path / "cache"), str(tmp_path / "cache")):
        monkeypatch.setenv("TYPOFIX_CACHE_DIR", cache)
        accepted = AcceptedWords.load(extra=["Typofix"])
        accepted.derive_with(lexicon.counts_of)
        together = accepted.contains_many(tokens), accepted.listed_as_many(tokens)
        assert getattr(accepted._listed, "_set", None) is None  # (read in place from the cache: no set made)
        assert together == ([t in accepted for t in tokens], [accepted.listed_as(t) for t in tokens])
        assert True in together[0] and False in together[0] and True in together[1] and False in together[1]
        assert accepted.contains_many([]) == [] and accepted.listed_as_many([]) == []


def test_accepted_words_take_extra_words_in_any_case(tmp_path):
    path = tmp_path / "a.txt.gz"
    path.write_bytes(gzip.compress(b"apple\nBanana\n"))
    (tmp_path / "none.txt.gz").write_bytes(gzip.compress(b""))
    accepted = AcceptedWords.load(path, extra=["Typofix"], names=tmp_path / "none.txt.gz",
                                  terms=tmp_path / "none.txt.gz")
    assert len(accepted) == 3 and "TYPOFIX" in accepted and "typofix" in accepted and "Apple" in accepted
    assert "Banana" in accepted and "BANANA" in accepted and "banana" not in accepted and "cherry" not in accepted
    accepted.add(["Cherry"])
    assert "cherry" in accepted and len(accepted) == 4


# mtime=0: the same bytes in every pytest-xdist worker (the parameters are the tests' ids, which must agree)
@pytest.mark.parametrize("content", [None, b"", b"not gzip at all\n", gzip.compress(b"apple\nBan-ana\n", mtime=0),
                                     gzip.compress(b"apple\n\nbanana\n", mtime=0),
                                     gzip.compress(b"caf\xc3\xa9\n", mtime=0), gzip.compress(b"apple", mtime=0),
                                     gzip.compress(b"", mtime=0), gzip.compress(b"apple\n", mtime=0)[:-6]])
def test_missing_or_corrupt_accepted_list_is_a_one_line_error(tmp_path, content):
    path = tmp_path / "accepted.txt.gz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(LexiconError) as err:
        AcceptedWords.load(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def build_accepted(lists: list[Path], out: Path) -> None:
    done = subprocess.run([sys.executable, str(BUILD_ACCEPTED), "--lists", *map(str, lists), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_accepted_build_filters_and_is_deterministic(tmp_path):
    """data/build_accepted.py on small stand-in lists: the filters, and the same bytes on every run."""
    american, british = tmp_path / "american", tmp_path / "british"
    american.write_text("Asunci\u00f3n Color color\nI'd Kinko's NASA NASA's color's\n", encoding="utf-8")
    british.write_text("colour\nAtat\u00fcrk's\nHallowe'en\nNASA\n", encoding="utf-8")
    outs = [tmp_path / "one.txt.gz", tmp_path / "two.txt.gz"]
    for out in outs:
        build_accepted([american, british], out)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    assert gzip.decompress(outs[0].read_bytes()) == b"Color\nKinko\nNASA\ncolor\ncolour\n"
    assert "Kinko" in AcceptedWords.load(outs[0]) and "kinko" not in AcceptedWords.load(outs[0])


def test_bundled_accepted_list_is_rebuilt_byte_for_byte(tmp_path):
    """The committed file is what the script makes from Debian's Aspell dictionaries (where installed)."""
    if shutil.which("aspell") is None or subprocess.run(["aspell", "-d", "en_GB-ize", "dump", "master"],
                                                        capture_output=True).returncode != 0:
        pytest.skip("Debian's aspell and aspell-en are not installed (make test-aspell installs them)")
    out = tmp_path / "accepted.txt.gz"
    done = subprocess.run([sys.executable, str(BUILD_ACCEPTED), "--out", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == bundled_accepted_path().read_bytes()


BUILD_WORDS = Path(__file__).resolve().parents[1] / "data" / "build_words.py"
WORDS = Path(__file__).resolve().parents[1] / "data" / "words.tsv"


def build_words(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BUILD_WORDS), *args], capture_output=True, text=True, timeout=300)


def test_words_build_adds_aspell_words_with_the_floor_count(tmp_path):
    """data/build_words.py on small stand-ins: SymSpell's filters, then Aspell's lowercase words, possessives and
    contractions (I'd lowercased) with the floor count; names, single letters and numerals stay out."""
    source = tmp_path / "symspell.txt"
    source.write_text("the 1000000\ncolour 50000\nrare 15000\nii 40000\nx 30000\ndon't 300000\n", encoding="utf-8")
    american, british = tmp_path / "US.txt", tmp_path / "GB.txt"
    american.write_text("the color color's didn't I'd Sam Sam's NASA rare b xiv\n", encoding="utf-8")
    british.write_text("colour colour's mustn't\n", encoding="utf-8")
    outs = [tmp_path / "one.tsv", tmp_path / "two.tsv"]
    for out in outs:
        done = build_words(["--source", str(source), "--aspell-lists", str(american), str(british), "--floor", "7",
                            "--out", str(out)])
        assert done.returncode == 0, done.stderr
    assert outs[0].read_bytes() == outs[1].read_bytes()
    rows = [line.split("\t") for line in outs[0].read_text().splitlines()]
    assert rows == [["the", "1000000"], ["colour", "50000"], ["rare", "15000"], ["color", "7"], ["color's", "7"],
                    ["colour's", "7"], ["didn't", "7"], ["i'd", "7"], ["mustn't", "7"]]
    assert "dropped below_min_count: 0" in done.stdout and "added possessive: 2" in done.stdout
    lexicon = Lexicon.from_tsv(outs[0])
    assert "didn't" in lexicon and lexicon.trie.walk("i'd") > 0


def test_bundled_words_cover_the_dev_targets():
    """The list reaches 99.5% of each dev set's rows, with both spellings, contractions and possessives."""
    lexicon = Lexicon.from_tsv(WORDS)
    assert len(lexicon) > 120_000
    for word in ["colour", "color", "organise", "organize", "didn't", "mustn't", "i've", "you're", "pilot's",
                 "desiccate", "the"]:
        assert word in lexicon, word
    for word in ["ii", "xiv", "b", "zworykin", "nasa's"]:  # numerals, stray letters, names without a Google Books count
        assert word not in lexicon, word
    assert lexicon.count("the") > lexicon.count("colour") > lexicon.count("pilot's") == 1_000
    done = build_words(["--coverage", "--out", str(WORDS)])
    assert done.returncode == 0, done.stderr
    shares = [float(share) for share in re.findall(r"rows \d+/\d+ \((\d+\.\d+)%\)", done.stdout)]
    assert len(shares) == 2 and min(shares) >= 99.5, done.stdout


def test_bundled_words_are_rebuilt_byte_for_byte(tmp_path):
    """The committed list is what the script makes from symspellpy and Debian's Aspell (where installed)."""
    if shutil.which("aspell") is None or subprocess.run(["aspell", "-d", "en_GB-ize", "dump", "master"],
                                                        capture_output=True).returncode != 0:
        pytest.skip("Debian's aspell and aspell-en are not installed (make bench-peers installs them)")
    pytest.importorskip("symspellpy")
    out = tmp_path / "words.tsv"
    done = build_words(["--out", str(out)])
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == WORDS.read_bytes()

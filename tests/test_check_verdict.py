"""What `check` reports of the model's findings (the project's vocabulary, the rules) and what -w writes.
No model: findings are made by hand."""

from __future__ import annotations

import os

import pytest

from typofix.apps.check.findings import Finding, finding_line
from typofix.apps.check.fixes import FixError, fixed_text, same_python, write_fixes
from typofix.apps.check.reader import scan_text
from typofix.apps.check.verdict import (Verdict, in_address, in_listed_compound, is_affix, is_combining_form,
                                       is_derived, is_name, is_possessive)
from typofix.apps.check.vocabulary import Vocabulary, WordUse, cased_terms, is_swap, software_terms
from typofix.engine.results import Suggestion, Weighed


def finding(word: str, correction: str, confidence: float = 6.0, start: int = 0, where: str = "text") -> Finding:
    return Finding("f.py", 1, start + 1, start, word, (correction,), confidence, where)


def vocabulary_of(*files: tuple[str, str], known=None) -> Vocabulary:
    vocabulary = Vocabulary(known)
    for path, text in files:
        vocabulary.add(WordUse.of(scan_text(path, text)))
    return vocabulary


def test_the_code_names_and_the_language_are_vocabulary():
    vocabulary = vocabulary_of(("a.py", "import numpy as np\n\ndef parseArgs(kwargs, proto):\n    return elif_x\n"
                                        "proto = proto + proto + proto\n"),
                                ("b.py", "parse_pagez = recieve_mesage = 1\n"))
    for word in ("numpy", "np", "parse", "kwargs", "elif", "len", "str", "sys"):
        assert vocabulary.accepts(word, "x"), word
    # a word only ever part of one name (however often it is used) names nothing of its own
    assert not vocabulary.accepts("mesage", "message") and not vocabulary.accepts("pagez", "pages")
    assert vocabulary.accepts("parseargs", "parsers")  # the whole name is a name
    assert vocabulary.accepts("proto", "porto")  # a swap of a common word, but the code names it, often
    vocabulary = vocabulary_of(("a.py", "teh = 1\n# teh end\n"))
    assert not vocabulary.accepts("teh", "the")  # a variable named after a typo excuses it nowhere
    assert not vocabulary.accepts("wrold", "world")


def test_a_word_used_consistently_is_vocabulary_a_slip_is_not():
    text = "# Bitstream here.\n# A Bitstream there.\n# Bitstream again, and teh, teh, teh.\n"
    vocabulary = vocabulary_of(("a.py", text), known={"recieve": frozenset({"receive"})})
    assert vocabulary.accepts("Bitstream", "Bitstreams")
    assert not vocabulary.accepts("teh", "the")  # used three times, but two letters of "the" swapped
    assert vocabulary.is_slip("recieve", "receive") and not vocabulary.is_slip("recieve", "relieve")


def test_a_repeated_word_one_edit_from_a_common_word_is_a_slip_only_where_that_word_is_written_more_often():
    """People slip on a word less often than they write it right: a word the model is sure is one edit from a
    common word is a slip where the files write that word at least as often (a repeated slip in test data), and
    the files' own word (an acronym: `cidr` beside cider) where they write it more often."""
    slip = vocabulary_of(("a.md", "becase one, becase two, becase three; because, because, because, because.\n"))
    assert not slip.accepts("becase", "because", 9.0)
    assert slip.accepts("becase", "because", 1.0)  # (the model unsure: used consistently, the files' word)
    own = vocabulary_of(("a.md", "Route the cidr block.\nEach cidr is a prefix, a cidr range.\nThe cider.\n"))
    assert own.accepts("cidr", "cider", 9.0)
    own = vocabulary_of(("a.md", "A cidr block, a cidr range, a cidr prefix; cider, cider.\n"))
    assert own.accepts("cidr", "cider", 9.0)
    own = vocabulary_of(("a.md", "A cidr block, a cidr range, a cidr prefix; cider, cider, cider.\n"))
    assert not own.accepts("cidr", "cider", 9.0)  # only as often as its neighbour


def test_a_software_term_one_edit_from_a_common_word_is_vocabulary_wherever_it_stands():
    """`trie` (a term listed "cased": one edit from tree) is a word, even written once and however sure the
    model is that it is a slip of tree (in man pages: `sudo umount`, `cron`, `sqrt`), unless it is a known
    misspelling; a term in any case (`kubectl`) is vocabulary wherever it stands. The list's marks are never
    part of a term."""
    assert "trie" in cased_terms() and "trie" not in software_terms() and "kubectl" in software_terms()
    assert not any("\t" in term for term in software_terms() | cased_terms())
    once = vocabulary_of(("a.md", "A trie holds words.\n"))
    assert once.accepts("trie", "tree", 9.0) and once.accepts("umount", "amount", 9.0)
    assert not Verdict(once, 2.0).may_keep("trie", "text")  # (so the model is not even asked)
    assert once.accepts("kubectl", "kubelet", 9.0)
    slips = vocabulary_of(("a.md", "A trie. The trie. Each trie.\n"), known={"trie": frozenset({"tree"})})
    assert not slips.accepts("trie", "tree", 1.0)  # a known misspelling of its correction is a slip still
    # a swap of a common word is a plain slip, but for a software term we know (uint of unit, colno of colon)
    assert once.is_slip("teh", "the") and not once.is_slip("uint", "unit") and not once.is_slip("colno", "colon")
    verdict = Verdict(once, 2.0)
    assert not verdict.may_keep("uint", "literal") and verdict.may_keep("teh", "literal")  # dtype="uint8": a key


def test_verdict_rules():
    vocabulary = vocabulary_of()
    verdict = Verdict(vocabulary, min_confidence=2.0)
    masked = "the arguemnt of Gregor Lingl and of the Recieve button -ness"
    at = masked.index
    assert verdict.keep(finding("arguemnt", "argument", start=at("arguemnt")), masked)
    assert not verdict.keep(finding("arguemnt", "argument", 1.0, start=at("arguemnt")), masked)  # not sure
    assert not verdict.keep(finding("iff", "if"), masked)  # short, and no swap
    assert verdict.keep(finding("teh", "the"), masked)  # short, but a swap
    assert not verdict.keep(finding("normalizations", "normalization"), masked)  # another ending
    assert not verdict.keep(finding("stddev", "studies", 9.0), masked)  # four edits away
    assert not verdict.keep(finding("Gregor", "Gregory", start=at("Gregor")), masked)  # a name
    assert not verdict.keep(finding("Recieve", "Receive", start=at("Recieve")), masked)  # capital mid-sentence
    assert not verdict.keep(finding("ness", "news", start=at("ness")), masked)  # an affix
    assert not verdict.keep(finding("paramter", "parameter", where="literal"), masked)  # a key, maybe
    assert verdict.keep(finding("recieve", "receive", where="literal"), masked)  # a plain slip (a swap)
    assert Verdict(vocabulary, 2.0, user_words=frozenset({"kubernetes"})).keep(
        finding("kubernets", "kubernetes", -1.5), "kubernets")  # near one of the user's words


def test_may_keep_leaves_out_only_words_that_no_finding_of_could_be_kept():
    """What the model is spared (`Verdict.may_keep` False) is never reported, whatever it would say."""
    vocabulary = vocabulary_of(("a.py", "import numpy as np\nproto = parse_args = parse_file = 1\n"
                                        "teh_x = teh_y = 1\n"), known={"recieve": frozenset({"receive"})})
    # what the engine may offer: listed words (the user's words are asked apart, below)
    corrections = ["the", "receive", "parser", "porto", "proton", "numpy", "nap", "pa", "args", "to"]
    for known_only in (False, True):
        verdict = Verdict(vocabulary, 2.0, known_only, vocabulary.known)
        for word in ("np", "numpy", "parse", "proto", "teh", "recieve", "Recieve", "zorbl", "args", "hte", "ot", "qzx"):
            for where in ("text", "literal", "identifier"):
                if verdict.may_keep(word, where):
                    continue
                for correction in corrections:
                    for confidence in (-1.0, 2.5, 9.0):
                        assert not verdict.keep(finding(word, correction, confidence, where=where), word), (
                            word, where, correction, confidence)
    verdict = Verdict(vocabulary, 2.0)
    assert not verdict.may_keep("numpy", "text") and not verdict.may_keep("parse", "text")  # the code's names
    assert verdict.may_keep("teh", "text") and verdict.may_keep("zorbl", "text")  # a slip; a word no one names
    assert not verdict.may_keep("zorbl", "literal") and verdict.may_keep("recieve", "literal")  # a key; a slip
    # a short word is reported only as a swap of a word: hte and ot may be, qzx (no swap of it is a word) not,
    # unless a swap of it is one of the user's words
    assert verdict.may_keep("hte", "text") and verdict.may_keep("ot", "text") and not verdict.may_keep("qzx", "text")
    assert Verdict(vocabulary, 2.0, user_words=frozenset({"zqx"})).may_keep("qzx", "text")


def test_a_search_with_no_correction_that_may_be_reported_spares_its_rows():
    """`may_report_any` False (the search found nothing that could be reported) means no finding of the word,
    with any of the search's corrections and their confidences, is reported wherever it stands; True where one
    could be."""
    vocabulary = vocabulary_of(("a.py", "parse_args = 1\n"), known={"recieve": frozenset({"receive"})})

    def weighed(word: str, *scored: tuple[str, float]) -> Weighed:
        return Weighed(word.lower(), 0.0, tuple(Suggestion(w, score, word.lower()) for w, score in scored))

    searches = [weighed("arguemnt", ("argument", 5.0), ("arguments", 1.0)),  # one edit, sure: reportable
                weighed("arguemnt", ("argument", 1.0)),  # not sure
                weighed("stddev", ("studies", 9.0)),  # far
                weighed("ot", ("to", 3.0)), weighed("iff", ("if", 6.0)),  # a short swap; a short word, no swap
                weighed("normalizations", ("normalization", 7.0)),  # another ending
                weighed("recieve", ("receive", -3.0), ("relieve", 4.0)),  # listed, but not sure
                weighed("parse", ("parser", 6.0)), weighed("Wrold", ("world", 6.0))]  # a name; capitalised
    for known_only in (False, True):
        verdict = Verdict(vocabulary, 2.0, known_only, vocabulary.known)
        answers = {}
        for search in searches:
            for word in (search.word, search.word.capitalize()):
                for where in ("text", "literal", "identifier"):
                    answers[word, where, search.corrections] = reportable = verdict.may_report_any(word, where, search)
                    if reportable:
                        continue
                    for c in search.corrections:
                        for masked in (word, f"a {word} b", f"'{word}'", f"See {word} here"):
                            at = masked.index(word)
                            assert not verdict.keep(finding(word, c.word, search.margin(c.word), at, where), masked)
        assert answers["arguemnt", "text", searches[0].corrections] is not known_only
        assert not answers["arguemnt", "text", searches[1].corrections]
        assert not answers["stddev", "text", searches[2].corrections]
        assert answers["ot", "text", searches[3].corrections] is not known_only
        assert not answers["parse", "text", searches[7].corrections]
        assert answers["recieve", "text", searches[6].corrections]  # relieve, sure enough; receive, listed
        # in a key only the listed slip may be, and only where its confidence is not asked (--known-only)
        assert answers["recieve", "literal", searches[6].corrections] is known_only
    # a near miss of one of the user's words is reported whatever the search found
    verdict = Verdict(vocabulary, 2.0, user_words=frozenset({"kubernetes"}))
    assert verdict.may_report_any("kubernets", "text", weighed("kubernets", ("kubernates", -4.0)))
    assert not verdict.may_report_any("kubectl", "text", weighed("kubectl", ("kubernates", -4.0)))


def test_a_word_with_no_listed_word_near_that_may_be_reported_is_not_searched():
    """`may_report_near` False (no listed word within two edits could be reported, whatever its confidence)
    means no correction of the word, near or far, is reported at any confidence; with --known-only, only its
    known corrections count."""
    vocabulary = vocabulary_of(("a.py", "proto = 1\nnumpy_thing = 2\n"), known={"recieve": frozenset({"receive"})})
    near = {"arguemnt": ["argument"], "normalizations": ["normalization"], "proto": ["porto", "photo"],
            "recieve": ["receive", "relieve"], "stddev": [], "iff": ["if", "riff"]}
    far = ["studies", "arguments", "received", "protons"]
    for known_only in (False, True):
        for users in (frozenset(), frozenset({"studies", "protos"})):
            verdict = Verdict(vocabulary, 2.0, known_only, vocabulary.known, user_words=users)
            for word, listed in near.items():
                for where in ("text", "literal", "identifier"):
                    if verdict.may_report_near(word, where, listed):
                        continue
                    for correction in listed + far:
                        for confidence in (-9.0, 2.5, 99.0):
                            assert not verdict.may_report(word, correction, confidence, where), (word, correction)
    verdict = Verdict(vocabulary, 2.0)
    assert verdict.may_report_near("arguemnt", "text", near["arguemnt"])
    assert not verdict.may_report_near("stddev", "text", [])  # nothing listed near: the model could only reach far
    assert not verdict.may_report_near("normalizations", "text", near["normalizations"])  # another ending only
    # a short word may be reported only as a swap of a word: its listed neighbours are not asked for
    assert not verdict.asks_listed("hte") and verdict.may_report_near("hte", "text", [])
    assert not verdict.may_report_near("iff", "text", ["if", "riff"])
    assert Verdict(vocabulary, 2.0, user_words=frozenset({"protos"})).may_report_near("proto", "text", [])
    # a user's word is a correction to report without confidence, but not from afar
    assert not Verdict(vocabulary, 2.0, user_words=frozenset({"studies"})).may_report("stddev", "studies", 9.0, "text")


def test_word_relations():
    assert is_swap("teh", "the") and is_swap("recieve", "receive") and not is_swap("the", "then")
    assert is_derived("invoker", "invoked") and is_derived("unclosed", "enclosed")
    assert not is_derived("kubernets", "kubernetes") and not is_derived("outsite", "outside")
    # -r for -er is a letter left out, as -s for -es and -d for -ed are: no other ending
    assert not is_derived("anothr", "another") and is_derived("escaper", "escape")
    assert is_name("Lingl", "Gregor Lingl", 7) and not is_name("Recieve", "Recieve it", 0)
    assert is_affix(" -ness", 2, 6) and is_affix("ough->uf", 0, 4) and not is_affix("well-known", 5, 10)
    assert is_derived("valuably", "valuable") and not is_derived("probaly", "probably")
    assert not is_derived("responsable", "responsible")  # -able for -ible is a misspelling
    # a possessive is no fix of a plural; a contraction is a fix of the letters typed without its apostrophe
    assert is_possessive("normalizations", "normalization's") and is_possessive("agencys", "agency's")
    assert not is_possessive("thats", "that's") and not is_possessive("dont", "don't")
    assert not is_possessive("yall", "y'all")
    line = "a mish-mash of e-mail, darn-tootin and kernel-sapce"
    assert [in_listed_compound(line, line.index(w), line.index(w) + len(w))
            for w in ("mish", "mash", "mail", "tootin", "sapce", "of")] == [True, True, True, False, False, False]
    # the part before a hyphen that begins many listed words, not its correction: a combining or clipped form
    line = "intra-line, regen-keyword, a poygon-tuple, acces-control, the intra line"
    assert [is_combining_form(line, line.index(w), line.index(w) + len(w), fix) for w, fix in
            (("intra", "intro"), ("regen", "region"), ("poygon", "polygon"), ("acces", "access"))] == [
        True, True, False, False]
    assert not is_combining_form(line, line.rindex("intra"), line.rindex("intra") + 5, "intro")  # no hyphen
    line = "sr@latn by Ann <ann at example.org>, look at python.org"
    assert [in_address(line, line.index(w), line.index(w) + len(w))
            for w in ("latn", "sr", "ann", "by", "look", "python")] == [True, True, True, False, False, False]


def test_findings_are_written_for_people_and_programs():
    found = Finding("a.py", 3, 7, 20, "recieve", ("receive", "relieve"), 7.3519, "text")
    assert finding_line(found) == "a.py:3:7: recieve ==> receive"
    assert finding_line(found, as_json=True) == (
        '{"path": "a.py", "line": 3, "column": 7, "word": "recieve", "suggestions": ["receive", "relieve"], '
        '"confidence": 7.352, "where": "text"}')


def test_fixes_keep_the_program_and_every_other_byte():
    source = 'x = "teh end"  # teh\n'
    fixes = [finding("teh", "the", start=5), finding("teh", "the", start=17)]
    assert fixed_text(source, fixes) == 'x = "the end"  # the\n'
    assert same_python(source, fixed_text(source, fixes))
    assert not same_python("x = teh\n", "x = the\n")  # a name changed: another program
    with pytest.raises(ValueError):
        fixed_text(source, [finding("teh", "the", start=0)])  # the word is not where the finding says


def test_write_fixes_follows_symlinks_and_refuses_what_it_must_not_write(tmp_path):
    target = tmp_path / "real.md"
    target.write_text("teh end\n")
    target.chmod(0o600)
    link = tmp_path / "link.md"
    link.symlink_to("real.md")
    write_fixes(str(link), "teh end\n", [finding("teh", "the")])
    assert link.is_symlink() and target.read_text() == "the end\n" and oct(target.stat().st_mode)[-3:] == "600"
    with pytest.raises(FixError, match="changed while it was checked"):
        write_fixes(str(link), "teh end\n", [finding("teh", "the")])
    target.chmod(0o444)
    with pytest.raises(FixError, match=f"cannot write {link} \\(-> {target}\\): the file is read-only"):
        write_fixes(str(link), "the end\n", [finding("the", "thy")])
    code = tmp_path / "a.py"
    code.write_text("teh = 1\n")
    with pytest.raises(FixError, match="would change the code"):
        write_fixes(str(code), "teh = 1\n", [finding("teh", "the")], python=True)
    assert code.read_text() == "teh = 1\n" and sorted(os.listdir(tmp_path)) == ["a.py", "link.md", "real.md"]

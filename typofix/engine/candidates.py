"""Where a typo's candidates come from besides the model: the lexicon words near it.

The cheap pass scores a `shortlist` of the words one edit away, the best by the channel alone; the wide pass
adds more of them, the most frequent words two edits away and the words that sound most like the typo
(`Neighbours.wide`). Three indexes find them, each built on first use (or read from the index cache,
`typofix.words.indexcache`, which digests this file: the words an index holds are chosen here).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from typofix.engine.settings import DecodingSettings
from typofix.engine.sounds import Sounds
from typofix.words.distance import osa_distance
from typofix.words.indexcache import cached
from typofix.words.lexicon import Lexicon
from typofix.words.neighbours import DeletionIndex
from typofix.words.phonetic import SoundIndex

# Two-edit candidates come from the most frequent words only: the index of all 77k (the list before Aspell's
# words were added) took 0.8 s to build, of these 0.3 s, and the wide pass wants the most frequent two-edit
# words anyway.
TWO_EDIT_WORDS = 40_000


class Neighbours:
    """The lexicon words near a typo, for the cheap and the wide pass, as `settings` asks for them."""

    def __init__(self, lexicon: Lexicon, settings: DecodingSettings, sounds: Sounds | None = None):
        self.lexicon, self.settings, self.sounds = lexicon, settings, sounds
        self._deletion_index: DeletionIndex | None = None
        self._one_edit_index: DeletionIndex | None = None
        self._near_index: DeletionIndex | None = None
        self._sound_index: SoundIndex | None = None
        self._words_by_frequency: Sequence[str] | None = None

    def one_edit(self, words: list[str]) -> list[list[str]]:
        """Every lexicon word one edit from each word, most frequent first."""
        return self.one_edit_index.near_many(words, len(self.lexicon), 1)

    def shortlist(self, word: str, near: list[str]) -> list[tuple[str, int]]:
        """Of the lexicon words `near` one edit from `word`, those the cheap pass scores with the model: the
        `shortlist` best by the channel alone (prior and first letter), with their edit distance (1)."""
        return self.shortlist_many([word], [near])[0]

    def shortlist_many(self, words: list[str], near: list[list[str]]) -> list[list[tuple[str, int]]]:
        """`shortlist` of each word, the priors of all their neighbours looked up at once."""
        s = self.settings
        priors = iter(self.lexicon.log_priors([w for group in near for w in group]))
        found = []
        for word, group in zip(words, near):
            first = word[:1]
            keys = [(-(s.prior_weight * next(priors) - s.first_letter_weight * (w[:1] != first)), w) for w in group]
            found.append([(w, 1) for _, w in sorted(keys)[:s.shortlist]])
        return found

    def said_alike(self, words: list[str]) -> list[dict[str, int]]:
        """The cheap pass's sound candidates, with their edit distance: the `homophone_candidates` most frequent
        listed words said exactly as each unlisted word is heard (juse -> juice, lones -> loans), which no edit
        index reaches and which the cheap pass, sure of a one-edit word (just), would otherwise never weigh."""
        found: list[dict[str, int]] = [{} for _ in words]
        if not self.settings.homophone_candidates or self.sounds is None:
            return found
        unlisted = [i for i, word in enumerate(words) if word not in self.lexicon]
        said = self.sounds.said_as([words[i] for i in unlisted], self.settings.homophone_candidates)
        for i, alike in zip(unlisted, said):
            found[i] = {w: osa_distance(words[i], w) for w in alike}
        return found

    def wide(self, words: list[str], one_edit_limit: int | None = None,
             one_edit: list[list[str]] | None = None) -> list[dict[str, int]]:
        """The wide pass's extra candidates of each word with their edit distance: the `one_edit_limit` most
        frequent lexicon words one edit away (None: all of them; `one_edit`: those words, most frequent first,
        where the caller has them), the `two_edit_candidates` most frequent two away (on birkbeck-dev, the 5
        most frequent bring the whole gain of taking all ~40 at an eighth of the cost), and the
        `sound_candidates` that sound most like it by their sound codes and the `phone_candidates` said most
        like it as phones (any distance: the misspellings written by sound). The two-edit and sound-alike words
        are never one edit away, whatever the limit."""
        s = self.settings
        if one_edit is None:
            one_edit = self.one_edit(words)
        near = [dict.fromkeys(found, 1) for found in one_edit]  # every one-edit word: what the others exclude
        found = [dict.fromkeys(ones[:one_edit_limit], 1) for ones in one_edit]
        if s.two_edit_candidates:
            far = self.deletion_index.near_many(words, s.two_edit_candidates, 2, near)
            for ones, kept, twos in zip(near, found, far):
                ones.update(dict.fromkeys(twos, 2))
                kept.update(dict.fromkeys(twos, 2))
        # Sound-alikes only for spellings the word list lacks: a listed word (`subdirectories`, in the list though
        # no dictionary accepts it) is a real spelling, and a far-off word that sounds like it (`subdirectory`)
        # is no correction of it. On the dev prose they were 11 of 26 broken words, with no fix gained.
        unlisted = [i for i, word in enumerate(words) if word not in self.lexicon]
        if s.sound_candidates:
            alike = self.sound_index.near_many([words[i] for i in unlisted], s.sound_candidates,
                                               [near[i] for i in unlisted])
            for i, sounds in zip(unlisted, alike):
                found[i].update((w, osa_distance(words[i], w)) for w in sounds)
        if s.phone_candidates and self.sounds is not None:
            said = self.sounds.alike([words[i] for i in unlisted], s.phone_candidates, [near[i] for i in unlisted])
            for i, alike_words in zip(unlisted, said):
                found[i].update((w, osa_distance(words[i], w)) for w in alike_words if w not in found[i])
        return found

    @property
    def sound_index(self) -> SoundIndex:
        """Words by their sound codes, for the first wide pass that wants them: from the index cache, or built
        (half a second for the bundled list) and saved there."""
        if self._sound_index is None:
            counts = self.lexicon.counts
            self._sound_index = cached("sound", self.lexicon.digest, lambda: SoundIndex(counts),
                                       lambda arrays: SoundIndex.from_arrays(counts, arrays))
        return self._sound_index

    @property
    def deletion_index(self) -> DeletionIndex:
        """The most frequent words two edits away, for the first wide pass: cached like `sound_index`."""
        if self._deletion_index is None:
            self._deletion_index = self._cached_deletions(f"two-edit-{TWO_EDIT_WORDS}", TWO_EDIT_WORDS, 2)
        return self._deletion_index

    @property
    def one_edit_index(self) -> DeletionIndex:
        """Every lexicon word one edit away, most frequent first (ten times faster than generating every string
        one edit away and looking each up): cached like `sound_index` (half a second to build)."""
        if self._one_edit_index is None:
            self._one_edit_index = self._cached_deletions("one-edit", len(self.lexicon), 1)
        return self._one_edit_index

    def listed_near(self, words: list[str], n: int | None = None) -> list[list[str]]:
        """Every lexicon word within two edits (OSA) of each word, other than the word itself, most frequent first
        (the `n` most frequent: a short word has thousands): every correction the search can offer a word within
        two edits is among them."""
        if self._near_index is None:  # (cached like `sound_index`: a second to build, 47 MB for the bundled list)
            self._near_index = self._cached_deletions("two-edit-all", len(self.lexicon), 2)
        near = self._near_index.near_many(words, len(self.lexicon) if n is None else n, 2)
        self._near_index.let_go()  # (a run asks it once, or a window at a time: its pages need not stay mapped)
        return near

    def _cached_deletions(self, name: str, size: int, max_edits: int) -> DeletionIndex:
        """The deletion index of the `size` most frequent words, from the index cache or built (and saved)."""
        ordered = self.by_frequency()
        words = ordered if size >= len(ordered) else ordered[:size]
        return cached(name, self.lexicon.digest, lambda: DeletionIndex(words, max_edits),
                      lambda arrays: DeletionIndex.from_arrays(words, arrays))

    def by_frequency(self) -> Sequence[str]:
        """The lexicon's words, most frequent first (ties in list order); worked out once (from the index cache,
        read in place: a run that corrects a word decodes a few of them)."""
        if self._words_by_frequency is None:
            words, frequency = self.lexicon.in_order()  # (not the dict: one word's run never makes it)
            if np.all(frequency[1:] <= frequency[:-1]):  # the bundled list is in this order; a user's words are not
                self._words_by_frequency = words
            else:
                self._words_by_frequency = [words[i] for i in np.argsort(-frequency, kind="stable").tolist()]
        return self._words_by_frequency

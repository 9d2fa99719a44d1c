"""Character vocabulary: maps characters to ids and back, with PAD/SOS/EOS/UNK specials."""

from __future__ import annotations

PAD, SOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, SOS, EOS, UNK)
DEFAULT_ALPHABET = "abcdefghijklmnopqrstuvwxyz'-"


class Vocab:
    """Turns words into id lists and back; ids 0..3 are the specials, then the alphabet in order."""

    def __init__(self, alphabet: str = DEFAULT_ALPHABET):
        if len(set(alphabet)) != len(alphabet) or not alphabet:
            raise ValueError(f"alphabet must be non-empty with no repeated characters: {alphabet!r}")
        self.alphabet = alphabet
        self.symbols: list[str] = list(SPECIALS) + list(alphabet)
        self._index = {s: i for i, s in enumerate(self.symbols)}
        self.pad_id, self.sos_id, self.eos_id, self.unk_id = (self._index[s] for s in SPECIALS)
        # An ASCII word is encoded by one bytes.translate (the engine encodes every candidate it scores): byte ->
        # id, UNK for a byte the alphabet lacks. Only where every id fits in a byte.
        self._ascii_ids = (bytes(self._index.get(chr(b), self.unk_id) for b in range(128)) + bytes(128)
                           if len(self.symbols) <= 256 else None)

    def __len__(self) -> int:
        return len(self.symbols)

    def covers(self, word: str) -> bool:
        """True when every character of `word` is in the alphabet (so no UNK would be needed)."""
        return all(c in self._index for c in word)

    def encode(self, word: str, add_eos: bool = False, add_sos: bool = False) -> list[int]:
        if self._ascii_ids is not None and word.isascii():
            ids = list(word.encode("ascii").translate(self._ascii_ids))
        else:
            ids = [self._index.get(c, self.unk_id) for c in word]
        if add_sos:
            ids.insert(0, self.sos_id)
        if add_eos:
            ids.append(self.eos_id)
        return ids

    def decode(self, ids) -> str:
        """Characters up to the first EOS; specials other than UNK are dropped."""
        chars = []
        for i in ids:
            i = int(i)
            if i == self.eos_id:
                break
            if i in (self.pad_id, self.sos_id):
                continue
            chars.append("?" if i == self.unk_id else self.symbols[i])
        return "".join(chars)

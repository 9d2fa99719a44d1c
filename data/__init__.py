"""The bundled word list and dev sets, shipped as package data `typofix.wordlist`."""

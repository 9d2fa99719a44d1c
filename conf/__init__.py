"""Typofix training configuration (Hydra), shipped as package data `typofix.conf`."""

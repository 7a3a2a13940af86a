"""The NNUE nets of the variants (format v3, docs/nnue.md "Variant nets"): one per
variant at most, none by default (the variant's hand-crafted eval; king of the hill,
three-check and crazyhouse: chess's net plus their own terms).  `eng.variant_nets`
of an Engine, as `eng.strength` is its playing-strength level."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.engine import search_bindings as sb


class VariantNets:
    """The variant nets of one engine; `live()` gives its C handle."""

    def __init__(self, live: Callable[[], Any]) -> None:
        self._live = live

    def load(self, variant: str, path: str | None) -> None:
        """The NNUE `variant` (UCI_Variant's name) searches with, from a .pbnn of format
        v3 naming it (None = none: the variant's hand-crafted eval, the default).

        NetFileError names the file and the problem; the engine keeps its net then."""
        sb.load_variant_net(self._live(), variant, path)

    def name(self, variant: str) -> str:
        """The name of the net loaded for `variant`, "" when none is."""
        return sb.variant_net_name(self._live(), variant)

"""Closing: `with obj:` closes obj when the block ends (the engine and the pool)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Self


class Closing(ABC):
    @abstractmethod
    def close(self) -> None:
        """Free what the object holds; idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""What a UCI session keeps between commands: the engine options, the engine
itself (built on first use) and the position in force.

The engine is built lazily, from the options set so far, so that `setoption
name Hash` before the first `isready` allocates one table, not two.  MultiPV
and the strength level (UCI_LimitStrength, UCI_Elo) live in the engine too:
`apply_strength` hands it the pair's meaning.  The
position is kept as the GUI sent it (a FEN or the start position, then moves):
the engine holds it too, and a variant's board (`go perft`, `d`) is rebuilt
from it under UCI_Variant's rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.engine.board import Board
from bot.engine.engine import DEFAULT_EVAL, Engine

# UCI_Elo's default: Stockfish's (its minimum there, 1350); ours goes lower.
DEFAULT_UCI_ELO = 1350


@dataclass
class UciOptions:
    hash_mb: int = 64
    threads: int = 1
    move_overhead_ms: int = 50
    ponder: bool = False
    chess960: bool = False
    variant: str = "chess"  # UCI_Variant (bot/uci/options.py's UCI_VARIANTS)
    use_nnue: bool = DEFAULT_EVAL == "nnue"
    eval_file: str = ""  # "" = the net built into the engine
    # A variant's net (EvalFileCrazyhouse ...): UCI_Variant name -> path ("" = none)
    variant_nets: dict[str, str] = field(default_factory=dict)
    multipv: int = 1
    limit_strength: bool = False  # UCI_LimitStrength: play at UCI_Elo
    elo: int = DEFAULT_UCI_ELO


@dataclass
class UciState:
    opts: UciOptions = field(default_factory=UciOptions)
    fen: str | None = None  # None: the variant's start position
    moves: list[str] = field(default_factory=list)
    # The engine, once engine() has built it; None until then.
    loaded: Engine | None = None

    def engine(self) -> Engine:
        if self.loaded is None:
            o = self.opts
            eng = Engine(hash_mb=o.hash_mb, threads=o.threads)
            self.loaded = eng
            eng.set_option(move_overhead_ms=o.move_overhead_ms, multipv=o.multipv)
            eng.strength.set(o.elo if o.limit_strength else None)
            eng.load_net(o.eval_file or None)
            for variant, path in o.variant_nets.items():
                eng.variant_nets.load(variant, path or None)
            eng.set_eval("nnue" if o.use_nnue else "hce")
            eng.new_game()  # fault the table in now, not during a timed search
            eng.set_position(self.fen, self.moves, o.chess960, o.variant)
        return self.loaded

    def apply_strength(self) -> None:
        """UCI_LimitStrength and UCI_Elo, as they stand, to the engine if built."""
        if self.loaded is not None:
            o = self.opts
            self.loaded.strength.set(o.elo if o.limit_strength else None)

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        # Set on the engine first: on a bad FEN/move it raises and the
        # previous position stays in force.
        self.engine().set_position(fen, moves, self.opts.chess960, self.opts.variant)
        self.fen, self.moves = fen, moves

    def set_variant(self, variant: str) -> None:
        """The position in force belongs to the old rules: the new variant
        starts from its own start position until the next `position`."""
        self.opts.variant = variant
        self.fen, self.moves = None, []
        if self.loaded is not None:
            self.loaded.set_position(None, [], self.opts.chess960, variant)

    def variant_board(self) -> Board:
        """The position in force under UCI_Variant's rules."""
        board = Board(self.fen, chess960=self.opts.chess960, variant=self.opts.variant)
        for mv in self.moves:
            board.push_uci(mv)
        return board

    def close(self) -> None:
        if self.loaded is not None:
            self.loaded.close()

"""On the device machine: the chunks it made, xz-compressed, into at most 5 tar files
under OUT of at most 12 MiB each and 58 MiB in all (what the device tool brings back:
8 files, 16 MiB each, 64 MiB in all; the rest of the room is for the logs). A chunk
that does not fit is named and stays listed in the manifest: it can be regenerated."""

from __future__ import annotations

import io
import lzma
import sys
import tarfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

PART_MAX, TOTAL_MAX, PARTS = 12 << 20, 58 << 20, 5


def compress(path: Path) -> tuple[str, bytes]:
    return path.name, lzma.compress(path.read_bytes(), preset=6)


def main() -> int:
    store, out, first = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    files = sorted(p for p in (store / "chunks").glob("c*.bin") if int(p.name[1:6]) >= first)
    with ProcessPoolExecutor() as ex:
        blobs = list(ex.map(compress, files))
    parts: list[list[tuple[str, bytes]]] = [[]]
    size = total = 0
    for name, blob in blobs:
        if total + len(blob) > TOTAL_MAX or (size + len(blob) > PART_MAX
                                             and len(parts) == PARTS):
            sys.stdout.write(f"left out (listed; regenerable): {name}\n")
            continue
        if size + len(blob) > PART_MAX:
            parts.append([])
            size = 0
        parts[-1].append((name, blob))
        size += len(blob)
        total += len(blob)
    for i, part in enumerate(p for p in parts if p):
        with tarfile.open(out / f"chunks{i}.tar", "w") as tf:
            for name, blob in part:
                info = tarfile.TarInfo(name + ".xz")
                info.size = len(blob)
                tf.addfile(info, io.BytesIO(blob))
        sys.stdout.write(f"chunks{i}.tar: {len(part)} chunks, "
                         f"{sum(len(b) for _, b in part):,} bytes\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

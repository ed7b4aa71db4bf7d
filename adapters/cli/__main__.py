"""``python -m adapters.cli``: operator commands.

- ``reembed``: after ``HEARTH_EMBEDDER`` changes, embed every memory and document chunk with
  the new embedder (with a progress bar), instead of mixing vectors of two models. Turns
  re-embed lazily anyway; this does it all at once, off the hot path.
- ``backup``: write every Hearth key to a file under ``HEARTH_BACKUP_DIR`` (``var/backups``).
- ``restore FILE``: put a backup's keys back exactly as they were.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from rich.progress import Progress

from adapters.bootstrap import build
from adapters.hearth import Hearth
from config.settings import load_settings
from engine.errors import HearthError
from storage.migrations import backup_namespace, restore_backup

BATCH = 64


async def reembed(hearth: Hearth) -> int:
    """Re-embed what lacks a vector of the configured embedder; returns how many texts."""
    embedder = hearth.embedder
    if embedder is None:
        print("HEARTH_EMBEDDER is none: nothing to embed.")  # noqa: T201
        return 0
    store, docs = hearth.memories, hearth.documents
    scopes = await hearth.directory.all_lists()
    missing = await store.missing_vectors(scopes, embedder.name) if scopes else []
    stored = await hearth.redis.hkeys(hearth.keys.personas())
    personas = [p.decode() if isinstance(p, bytes) else p for p in stored]
    stale = [p for p in personas if (await docs.version(p))[1] not in (None, embedder.name)]
    done = 0
    with Progress() as progress:
        task = progress.add_task(f"memories → {embedder.name}", total=len(missing))
        for start in range(0, len(missing), BATCH):
            batch = missing[start : start + BATCH]
            vectors = await asyncio.to_thread(embedder.embed_passages, [r.text for r in batch])
            await store.put_vectors(embedder.name, batch, vectors)
            progress.advance(task, len(batch))
            done += len(batch)
        for persona in stale:
            done += await docs.reembed(persona, embedder.name, embedder.embed_passages, progress)
    print(f"re-embedded {done} texts with {embedder.name}")  # noqa: T201
    return done


async def backup_or_restore(hearth: Hearth, command: str, file: str | None) -> None:
    """Back up the namespace, or restore a backup file."""
    if command == "backup":
        folder = Path(hearth.settings.backup_dir)
        path, count = await backup_namespace(hearth.redis, hearth.keys, folder, hearth.clock.now())
        print(f"backed up {count} keys to {path}")  # noqa: T201
        return
    if not file:
        raise SystemExit("restore needs the backup file")
    count = await restore_backup(hearth.redis, Path(file), hearth.keys)
    print(f"restored {count} keys from {file}")  # noqa: T201


async def run(command: str, file: str | None) -> None:
    """Build the graph once (as the web and worker do) and run one command on it."""
    hearth = build(load_settings(os.environ))
    try:
        if command == "reembed":
            await reembed(hearth)
        else:
            await backup_or_restore(hearth, command, file)
    finally:
        await hearth.close()


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="python -m adapters.cli", description=__doc__)
    parser.add_argument("command", choices=["reembed", "backup", "restore"])
    parser.add_argument("file", nargs="?")
    args = parser.parse_args()
    try:
        asyncio.run(run(args.command, args.file))
    except HearthError as exc:
        sys.stderr.write(f"hearth: {exc.message}\n")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()

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
from datetime import UTC, datetime
from pathlib import Path

from rich.progress import Progress

from adapters.embedding import make_embedder
from config.settings import load_settings
from engine.errors import PersonaBotError
from storage.client import connect
from storage.keys import KeyBuilder
from storage.migrations import backup_namespace, restore_backup
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory

BATCH = 64


async def reembed() -> int:
    """Re-embed what lacks a vector of the configured embedder; returns how many texts."""
    settings = load_settings(os.environ)
    embedder = make_embedder(settings.embedder)
    if embedder is None:
        print("HEARTH_EMBEDDER is none: nothing to embed.")  # noqa: T201
        return 0
    redis = connect(settings.redis_url, cluster=settings.redis_cluster)
    keys = KeyBuilder(prefix=settings.namespace)
    store, docs = RedisMemoryStore(redis, keys), RedisDocumentStore(redis, keys)
    directory = RedisMemoryDirectory(redis, keys)
    scopes = await directory.all_lists()
    missing = await store.missing_vectors(scopes, embedder.name) if scopes else []
    personas = [p.decode() for p in await redis.hkeys(keys.personas())]
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
    await redis.aclose()
    print(f"re-embedded {done} texts with {embedder.name}")  # noqa: T201
    return done


async def backup_or_restore(command: str, file: str | None) -> None:
    """Back up the namespace, or restore a backup file."""
    settings = load_settings(os.environ)
    redis = connect(settings.redis_url, cluster=settings.redis_cluster)
    keys = KeyBuilder(prefix=settings.namespace)
    if command == "backup":
        path, count = await backup_namespace(redis, keys, Path(settings.backup_dir), datetime.now(UTC))
        print(f"backed up {count} keys to {path}")  # noqa: T201
    else:
        if not file:
            raise SystemExit("restore needs the backup file")
        count = await restore_backup(redis, Path(file), keys)
        print(f"restored {count} keys from {file}")  # noqa: T201
    await redis.aclose()


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="python -m adapters.cli", description=__doc__)
    parser.add_argument("command", choices=["reembed", "backup", "restore"])
    parser.add_argument("file", nargs="?")
    args = parser.parse_args()
    try:
        if args.command in ("backup", "restore"):
            asyncio.run(backup_or_restore(args.command, args.file))
            return
        asyncio.run(reembed())
    except PersonaBotError as exc:
        sys.stderr.write(f"hearth: {exc.message}\n")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()

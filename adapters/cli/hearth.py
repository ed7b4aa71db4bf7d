"""The ``hearth`` console command: one entry point for every process and operator command.

``hearth web`` and ``hearth worker`` run the Procfile's two processes (the same as
``python -m adapters.web`` / ``python -m adapters.worker``); ``hearth backup``, ``hearth restore
FILE`` and ``hearth reembed`` are the operator commands of ``python -m adapters.cli``.
Each target is imported only once chosen, so the process-wide settings its module makes before
loading the embedder (one OpenMP thread) still come first.
"""

from __future__ import annotations

import sys

USAGE = """usage: hearth COMMAND [ARGS]

commands:
  web            the web process: chat page, REST API, WebSocket, Telegram webhook
  worker         the worker process: summaries, deep memory, archive, Telegram polling
  backup         write every Hearth key to a file under HEARTH_BACKUP_DIR
  restore FILE   put a backup's keys back exactly as they were
  reembed        embed every memory and document chunk with the configured embedder
"""

OPERATOR = ("backup", "restore", "reembed")


def main(argv: list[str] | None = None) -> None:
    """Dispatch ``hearth COMMAND`` to the process or operator command it names."""
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else ""
    if command in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return
    if command == "web":
        from adapters.web.__main__ import main as web

        sys.argv = ["hearth web"]
        web()
    elif command == "worker":
        from adapters.worker.__main__ import main as worker

        sys.argv = ["hearth worker"]
        worker()
    elif command in OPERATOR:
        from adapters.cli.__main__ import main as operator

        sys.argv = ["hearth", *args]
        operator()
    else:
        sys.stderr.write(f"hearth: unknown command {command!r}\n" if command else "")
        sys.stderr.write(USAGE)
        raise SystemExit(2)


if __name__ == "__main__":
    main()

"""The dream pass (EPI-10), pure part: which clusters to rewrite, the prompt, the validated output.

Opt-in (``DreamPolicy.enabled``), it needs an LLM and an embedder. After ``idle_window_secs``
without client activity it takes clusters of cold near-duplicate pages, the most novel first
(farthest from what the rest of the archive already says), up to ``max_clusters_per_run``. For
each cluster the LLM answers JSON validated against ``DreamOutput``; the highest-scoring page is
rewritten (a new version, EPI-11), every other page becomes a stub pointing to it, and evidence
lines record which pages fed the merge. Output that fails validation changes nothing and is
recorded in the run's report; the cluster's fingerprint (its pages and their versions) is
remembered and the cluster is not sent again until one of its pages changes. When activity
resumes the run stops before the next cluster.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Literal

import msgspec

from engine.archive.entropy import low_entropy
from engine.archive.model import ArchivePolicy, Page
from engine.archive.retention import retention_score
from engine.archive.tokens import merge_keep
from engine.archive.versions import rewrite_page, supersede_page
from engine.prompt import Prompt, PromptMessage

__all__ = [
    "DreamCluster",
    "DreamEvidence",
    "DreamOutput",
    "DreamPolicy",
    "DreamReport",
    "apply_dream",
    "cluster_fingerprint",
    "dream_prompt",
    "is_idle",
    "parse_dream",
    "plan_dream",
]


class DreamPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``[dream]``: off unless enabled."""

    enabled: bool = False
    idle_window_secs: int = 300
    max_clusters_per_run: int = 8
    similarity: float = 0.85


class DreamCluster(msgspec.Struct, frozen=True, kw_only=True):
    """Cold near-duplicate pages to merge, with the survivor and how novel the cluster is."""

    pages: tuple[str, ...]
    survivor: str
    novelty: float
    fingerprint: str = ""  # ``cluster_fingerprint`` of its pages as planned


class DreamEvidence(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Which page a line of the merged page came from."""

    page: str
    line: str


class DreamOutput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The only JSON the pass accepts from the LLM."""

    abstract: str
    summary: str
    body: str
    evidence: list[DreamEvidence]


class DreamReport(msgspec.Struct, frozen=True, kw_only=True):
    """What a run did (every run leaves one)."""

    started_at: datetime
    status: Literal["done", "stopped", "skipped"]
    reason: str = ""
    merged: tuple[tuple[str, tuple[str, ...]], ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()


_DECODER = msgspec.json.Decoder(DreamOutput)


def is_idle(last_activity: datetime | None, now: datetime, policy: DreamPolicy) -> bool:
    """Whether no client has been active for ``idle_window_secs``."""
    return last_activity is None or (now - last_activity).total_seconds() >= policy.idle_window_secs


def cluster_fingerprint(pages: Sequence[Page]) -> str:
    """A stable name of a cluster as it is now: its pages' chats, ids and versions, in any order.

    Any change to a member (a new version, a page joining or leaving) gives another fingerprint.
    """
    parts = sorted(f"{p.chat}\x00{p.id}\x00{p.version}" for p in pages)
    return hashlib.sha256("\x01".join(parts).encode()).hexdigest()[:32]


def plan_dream(
    pages: Sequence[Page],
    clusters: Sequence[Sequence[str]],
    novelty: Mapping[str, float],
    now: datetime,
    archive: ArchivePolicy,
    policy: DreamPolicy,
    rejected: Collection[str] = (),
) -> tuple[DreamCluster, ...]:
    """Clusters to rewrite, most novel first, at most ``max_clusters_per_run``.

    Args:
        pages: the archive's pages.
        clusters: near-duplicate groups (from embeddings, see ``cluster_by_similarity``).
        novelty: per page, ``1 − max similarity`` to pages outside its cluster (computed by the caller).
        now: the time of the run.
        archive: the archive policy (what "cold" means).
        policy: the dream policy.
        rejected: fingerprints of clusters whose output was rejected before; such a cluster is
            left out while its pages stay as they were.

    Returns:
        Clusters of two or more cold, unpinned, non-low-entropy episodic pages.
    """
    by_id = {p.id: p for p in pages}
    planned: list[DreamCluster] = []
    for cluster in clusters:
        members = [by_id[i] for i in cluster if i in by_id]
        usable = [
            p
            for p in members
            if p.layer == "episodic"
            and not p.pinned
            and p.status in ("active", "cold")
            and retention_score(p, now, archive) < archive.cold_below
            and not low_entropy(p.body or p.summary)
        ]
        if len(usable) < 2:
            continue
        fingerprint = cluster_fingerprint(usable)
        if fingerprint in rejected:
            continue
        survivor = max(usable, key=lambda p: (retention_score(p, now, archive), p.created_at, p.id))
        score = sum(novelty.get(p.id, 0.0) for p in usable) / len(usable)
        ids = tuple(p.id for p in usable)
        planned.append(DreamCluster(pages=ids, survivor=survivor.id, novelty=score, fingerprint=fingerprint))
    planned.sort(key=lambda c: (-c.novelty, c.survivor))
    return tuple(planned[: policy.max_clusters_per_run])


def dream_prompt(pages: Sequence[Page]) -> Prompt:
    """Ask the LLM to rewrite a cluster into one coherent page, as JSON with evidence."""
    system = (
        "You tidy a chat archive. The pages below say almost the same thing. Rewrite them into one "
        "coherent page. Keep every concrete fact, name, date, path, URL, code and error code. Answer "
        'only JSON: {"abstract": one line, "summary": one paragraph, "body": the page, "evidence": '
        '[{"page": page id, "line": a line of the new body that comes from that page}]}'
    )
    text = "\n\n".join(f"[page {p.id}]\n{p.abstract}\n{p.summary}\n{p.body}".strip() for p in pages)
    return Prompt(
        messages=(
            PromptMessage(role="system", text=system, slot="persona"),
            PromptMessage(role="user", text=text, slot="window"),
        ),
        stable_count=1,
    )


def parse_dream(text: str, cluster: DreamCluster) -> DreamOutput | str:
    """The validated output, or why it was rejected (nothing changes then)."""
    body = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        output = _DECODER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return f"invalid JSON output: {exc}"
    if not output.body.strip() or not output.abstract.strip():
        return "empty abstract or body"
    strangers = {e.page for e in output.evidence} - set(cluster.pages)
    if strangers:
        return f"evidence names pages outside the cluster: {sorted(strangers)}"
    return output


def apply_dream(
    pages: Sequence[Page], cluster: DreamCluster, output: DreamOutput, at: datetime
) -> tuple[Page, ...]:
    """The survivor rewritten as a new version; the other pages stubs pointing to it (EPI-10, EPI-11)."""
    by_id = {p.id: p for p in pages}
    members = [by_id[i] for i in cluster.pages]
    survivor = by_id[cluster.survivor]
    evidence = "\n".join(f"- from {e.page}: {e.line}" for e in output.evidence)
    rewritten = rewrite_page(
        survivor,
        at=at,
        reason="dream",
        abstract=output.abstract.strip(),
        summary=output.summary.strip(),
        body=f"{output.body.strip()}\n\nEvidence:\n{evidence}" if evidence else output.body.strip(),
        keep=merge_keep(*(p.keep for p in members)),
    )
    rewritten = msgspec.structs.replace(
        rewritten,
        merged_from=tuple(
            dict.fromkeys((*survivor.merged_from, *(i for i in cluster.pages if i != survivor.id)))
        ),
    )
    stubs = tuple(supersede_page(p, survivor.id, at) for p in members if p.id != survivor.id)
    return (rewritten, *stubs)

"""Recall: how a message brings back memories, document chunks and archive pages (docs/RECALL.md).

* ``search`` — ``EmbeddingRecall`` / ``NoRecall``, the engine's search ports: one query per turn
  (``engine.ports.Query``) measured against every memory in play and every document chunk.
* ``hybrid`` — scored candidate sets: the dense score and the lexical evidence per candidate,
  and the measurements the learned decision reads (``engine.memory.decision``).
* ``lexical`` — the BM25 index, covers, the person evidence (RECALL-2) and names-only (RECALL-3);
  ``names`` — nicknames, short forms and spellings of one name (``nicknames.toml``).
* ``scorer`` — background-relative dense scores, the calibrated rules per embedder and the
  learned decision's parameters (``decision_<embedder>.json``, trained by
  ``bench/train_decision.py``).
* ``archive`` — session pages and their chunk vectors (EPI-13).

The vector indexes (FAISS) are ``adapters.vector``; the embedders are ``adapters.embedding``.
"""

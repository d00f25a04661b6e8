"""The simulator's files endpoints in the providers' documented shapes, read as raw JSON (the SDK
tests in test_upload_keeping read them through the SDKs), and the demo account that keeps
`--demo`'s uploads between runs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ensemble_tui.providers.credentials import Credentials
from ensemble_tui.providers.openai_adapter import OpenAIProvider
from ensemble_tui.simulator import SIM_KEYS
from ensemble_tui.simulator.demo import DemoSimulator
from tests.providers.provider_support import ask

HEADERS = {
    "openai": {"authorization": f"Bearer {SIM_KEYS['OPENAI_API_KEY']}"},
    "anthropic": {"x-api-key": SIM_KEYS["ANTHROPIC_API_KEY"], "anthropic-beta": "files-api-2025-04-14"},
    "gemini": {"x-goog-api-key": SIM_KEYS["GEMINI_API_KEY"]},
}


def call(url: str, name: str, method: str = "GET") -> tuple[int, Any]:
    request = urllib.request.Request(url, method=method, headers=HEADERS[name])
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_openai_list_and_delete_shapes(sim, make, pdf):
    await make("openai").complete(ask(pdf=pdf))
    base = sim.base_urls["openai"]
    status, listed = call(f"{base}/files?purpose=user_data", "openai")
    assert status == 200 and set(listed) == {"object", "data", "first_id", "last_id", "has_more"}
    (item,) = listed["data"]
    assert listed["object"] == "list" and listed["first_id"] == listed["last_id"] == item["id"]
    assert item["object"] == "file" and item["purpose"] == "user_data" and item["bytes"] == pdf.stat().st_size
    assert item["expires_at"] == item["created_at"] + 7 * 86_400  # expires_after, anchored at created_at
    assert call(f"{base}/files?purpose=batch", "openai")[1]["data"] == []
    assert call(f"{base}/files/{item['id']}", "openai", "DELETE") == (
        200,
        {"id": item["id"], "object": "file", "deleted": True},
    )
    status, gone = call(f"{base}/files/{item['id']}", "openai", "DELETE")
    assert status == 404 and gone["error"]["type"] == "invalid_request_error"


async def test_anthropic_list_and_delete_shapes(sim, make, pdf):
    await make("anthropic").complete(ask(pdf=pdf))
    base = sim.base_urls["anthropic"]
    status, listed = call(f"{base}/v1/files?beta=true", "anthropic")
    assert status == 200 and {"data", "first_id", "last_id", "has_more"} <= set(listed)
    (item,) = listed["data"]
    assert item["type"] == "file" and item["mime_type"] == "application/pdf" and item["created_at"].endswith("Z")
    assert call(f"{base}/v1/files/{item['id']}?beta=true", "anthropic", "DELETE") == (
        200,
        {"id": item["id"], "type": "file_deleted"},
    )
    status, gone = call(f"{base}/v1/files/{item['id']}?beta=true", "anthropic", "DELETE")
    assert status == 404 and gone["error"]["type"] == "not_found_error"


async def test_gemini_list_and_delete_shapes(sim, make, pdf):
    await make("gemini").complete(ask(pdf=pdf))
    base = sim.base_urls["gemini"]
    status, listed = call(f"{base}/v1beta/files?pageSize=10", "gemini")
    assert status == 200 and set(listed) == {"files"}  # no nextPageToken on the last page
    (item,) = listed["files"]
    assert item["name"].startswith("files/") and item["state"] == "ACTIVE"
    assert item["expirationTime"] > item["createTime"]
    assert call(f"{base}/v1beta/{item['name']}", "gemini", "DELETE") == (200, {})
    status, gone = call(f"{base}/v1beta/{item['name']}", "gemini", "DELETE")
    assert status == 403 and gone["error"]["status"] == "PERMISSION_DENIED"


async def test_the_demo_account_keeps_uploads_between_runs(tmp_path, pdf):
    account = tmp_path / "account.json"

    async def with_adapter(demo: DemoSimulator, action):  # a fresh adapter per run, as per process
        adapter = OpenAIProvider(
            "ChatGPT", Credentials(SIM_KEYS["OPENAI_API_KEY"], "OPENAI_API_KEY", demo.base_urls["openai"])
        )
        try:
            return await action(adapter)
        finally:
            await adapter.aclose()

    with DemoSimulator(seed=1, latency=(0.0, 0.0), account=account) as first:
        await with_adapter(first, lambda adapter: adapter.complete(ask(pdf=pdf)))
        (uploaded,) = first.openai.stored
    with DemoSimulator(seed=1, latency=(0.0, 0.0), account=account) as second:
        assert [file.id for file in second.openai.stored] == [uploaded.id]
        assert await with_adapter(second, lambda adapter: adapter.delete_file(uploaded.id)) is True
    with DemoSimulator(seed=1, latency=(0.0, 0.0), account=account) as third:
        assert third.openai.stored == []
    account.write_text("not json")
    with DemoSimulator(seed=1, latency=(0.0, 0.0), account=account) as fourth:  # a broken account: empty
        assert fourth.openai.stored == []

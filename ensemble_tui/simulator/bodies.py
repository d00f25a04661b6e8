"""Reading a recorded request's body: JSON, or multipart form data with its file parts."""

from __future__ import annotations

import json
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from ensemble_tui.simulator.script import RecordedRequest, json_strings
from ensemble_tui.simulator.wire import sha256


def parse_body(request: RecordedRequest, data: bytes) -> None:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        request.multipart = parse_multipart(content_type, data)
    elif data and "json" in content_type:
        try:
            request.body = json.loads(data)
        except ValueError:
            request.body = None
    request.text = "\n".join(json_strings(request.body))


def parse_multipart(content_type: str, data: bytes) -> dict[str, Any]:
    """Form fields and file parts (name, type, size, sha256; raw bytes under "blobs")."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + data)
    fields: dict[str, str] = {}
    files: dict[str, dict[str, Any]] = {}
    blobs: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition") or ""
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields[str(name)] = payload.decode("utf-8", "replace")
            continue
        files[str(name)] = {
            "filename": filename,
            "content_type": part.get_content_type(),
            "size": len(payload),
            "sha256": sha256(payload),
        }
        blobs[str(name)] = payload
    return {"fields": fields, "files": files, "blobs": blobs}

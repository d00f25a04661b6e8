"""The debate reply format: `# ANSWER`, `# RATIONALE`, `# DISCUSSION` with `## With Agent X`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SECTION = re.compile(r"^#[ \t]+(ANSWER|RATIONALE|DISCUSSION)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_PEER = re.compile(r"^##[ \t]+With[ \t]+(?:Agent[ \t]+)?([A-Z])\b.*$", re.IGNORECASE | re.MULTILINE)


class DebateFormatError(ValueError):
    """The reply lacks the required sections."""


@dataclass(frozen=True)
class DebateReply:
    answer: str
    rationale: str = ""
    messages: dict[str, str] = field(default_factory=dict)  # peer letter -> message to it


def parse_debate_reply(text: str, peers: tuple[str, ...]) -> DebateReply:
    """Split a reply into its sections; messages to letters outside `peers` are dropped."""
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(text))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        name = match.group(1).upper()
        if name in sections:
            raise DebateFormatError(f"section # {name} appears twice")
        sections[name] = text[match.end() : end].strip()
    answer = sections.get("ANSWER", "")
    if not answer:
        raise DebateFormatError("no # ANSWER section")
    messages: dict[str, str] = {}
    discussion = sections.get("DISCUSSION", "")
    peer_matches = list(_PEER.finditer(discussion))
    for index, match in enumerate(peer_matches):
        end = peer_matches[index + 1].start() if index + 1 < len(peer_matches) else len(discussion)
        letter = match.group(1).upper()
        body = discussion[match.end() : end].strip()
        if letter in peers and body:
            messages[letter] = body
    return DebateReply(answer, sections.get("RATIONALE", ""), messages)

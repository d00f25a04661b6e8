"""Synthetic chats and a synthetic paper for the benchmarks.

Replies are ~2 KB of the Markdown models really write (headings, lists, a table, a code block),
because rendering cost depends on the mix, not only the length. Every reply ends with a marker
word (`ZQ0007END`) that the frame probes look for: a frame containing the newest reply's marker
is a frame that shows the end of the chat, i.e. the chat as the user expects to see it.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from ensemble_tui.core.chat.session import ChatMessage, ModelOutput, Resubmission, SessionData
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.atomic import atomic_write_json
from ensemble_tui.core.store.home import seed_home
from ensemble_tui.core.store.session_store import SessionStore

REPLY_BYTES = 2048
PDF_NAME = "paper.pdf"


def marker(number: int | str) -> str:
    """The word that ends reply `number` (kept as one plain word so a frame holds it whole)."""
    return f"ZQ{number:04d}END" if isinstance(number, int) else f"ZQ{number}END"


def start_marker(number: int | str) -> str:
    """The word in reply `number`'s first line: a new reply is shown from its start (row 3)."""
    return f"ZQ{number:04d}TOP" if isinstance(number, int) else f"ZQ{number}TOP"


def reply_text(number: int | str, size: int = REPLY_BYTES) -> str:
    """A reply of about `size` characters with code, a table and lists, its start marker in its
    first line and its end marker last."""
    body = [
        f"### Finding {number} {start_marker(number)}: what the paper shows",
        "",
        "The authors compare **three ways** to combine several language models: an aggregator that "
        "merges proposals, a council that ranks anonymous answers, and a debate. Their claim is that "
        "*aggregation* wins on factual questions while debate helps on open ones.",
        "",
        "- The aggregator sees every proposal, shuffled, and may ask for one more round.",
        "- Rankings are anonymous, so no model can favour its own answer.",
        "- Debate rounds cost more calls but converge faster on hard questions.",
        "",
        "| Style | Calls per turn | Accuracy | Notes |",
        "|---|---:|---:|---|",
        "| Aggregate | 6 | 81.2 % | best on facts |",
        "| Council | 11 | 79.5 % | robust to one bad model |",
        "| Debate | 16 | 77.9 % | best on open questions |",
        "",
        "```python",
        "def borda(ballots: list[list[str]]) -> dict[str, int]:",
        "    points: dict[str, int] = {}",
        "    for ballot in ballots:",
        "        for place, author in enumerate(ballot):",
        "            points[author] = points.get(author, 0) + len(ballot) - 1 - place",
        "    return points",
        "```",
        "",
        "1. Check Table 2 against the appendix before quoting it.",
        "2. The confidence intervals in Figure 3 overlap for the last two styles.",
        "",
    ]
    text = "\n".join(body)
    filler = (
        "A further remark: the evaluation uses 400 questions from the appendix, and the authors "
        "report the median of five runs with different seeds. "
    )
    while len(text) + len(filler) + 40 < size:
        text += filler
    return text + f"\n\nEnd of reply {number}: {marker(number)}\n"


# Formulas as models write them (tests/data/math_corpus.json has more); `{n}` makes each reply's
# formulas differ from every other reply's, so no converted formula is reused from a cache.
MATH_LINES = (
    "Scaled dot-product attention is $\\mathrm{{softmax}}\\left(\\frac{{QK^T}}{{\\sqrt{{d_{{{n}}}}}}}\\right)V$, "
    "with $\\alpha_{{{n}}}+\\beta = 1$ and a cost of $5 and $10 per run.",
    "$$\\mathcal{{L}}_{{{n}}} = -\\sum_{{i=1}}^{{N}} y_i \\log \\hat{{y}}_i + \\lambda \\|w\\|_2^2$$",
    "The update is \\(\\theta_{{t+{n}}} = \\theta_t - \\eta \\nabla_\\theta L(\\theta_t)\\) and "
    "$\\mathbb{{E}}_{{x \\sim p}}[f(x)] \\le {n}$.",
    "$$\\begin{{pmatrix}} a_{{{n}}} & b \\\\ c & d \\end{{pmatrix}} \\begin{{cases}} 1 & x > {n} \\\\ 0 & "
    "\\text{{otherwise}} \\end{{cases}}$$",
)


def math_reply_text(number: int | str, size: int = REPLY_BYTES) -> str:
    """`reply_text` with LaTeX in it: eight formulas (inline, display, a matrix, cases) up front."""
    math = "\n\n".join(line.format(n=f"{number}{copy}") for copy in (0, 1) for line in MATH_LINES)
    return math + "\n\n" + reply_text(number, size - len(math))


def question_text(number: int) -> str:
    return f"Question {number}: what does section {number % 9 + 1} say about the aggregator, and why?"


def long_session(turns: int, pdf: Path | None, seed: int = 7, math: bool = False) -> SessionData:
    """A chat of `turns` answered questions, with model outputs and a resubmission like a real one;
    `math`: every reply holds LaTeX (math_reply_text)."""
    history: list[ChatMessage] = []
    make_reply = math_reply_text if math else reply_text
    for number in range(1, turns + 1):
        history.append(ChatMessage(role="user", text=question_text(number)))
        history.append(ChatMessage(role="assistant", text=make_reply(number), sources=["https://example.org/paper"]))
    rng = random.Random(seed)
    outputs = {
        label: ModelOutput(query=question_text(turns), text=reply_text(f"{label[:2]}{rng.randint(0, 99)}"), model="m")
        for label in ("ChatGPT", "Claude", "Gemini")
    }
    resubmissions = [Resubmission(iteration=1, text=reply_text("RS"))] if turns else []
    return SessionData(
        id="2026-01-01_00-00-00",
        history=history,
        last_outputs=outputs if turns else {},
        resubmissions=resubmissions,
        cost_usd=0.01 * turns,
        pdf_path=str(pdf) if pdf else None,
        last_mode="all",
    )


def write_session(home: Path, session: SessionData) -> None:
    """Save `session` in a seeded home as the app saves it (archive rows, Session.json,
    transcript), so the app restores it as it would a chat of its own."""
    paths = seed_home(home)
    archive = RunArchive(paths.archive)
    try:
        SessionStore(paths, archive).save(session)
    finally:
        archive.close()


def enable_compatible_providers(home: Path, labels: tuple[str, ...] = ("DeepSeek", "OpenRouter")) -> None:
    """Turn shipped OpenAI-compatible examples on (as a user would edit their files), with prompt
    files like ChatGPT's: `All` then has five proposers (see tests/providers/test_end_to_end_mixed.py)."""
    import json

    paths = seed_home(home)
    for label in labels:
        path = paths.configurations / f"{label}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        data["enabled"] = True
        data["joins_all"] = True
        atomic_write_json(path, data)
        for folder in ("ProposerSystemPrompts", "SynthesizeFromProposalsPrompts"):
            prompts = paths.prompts / folder
            shutil.copyfile(prompts / "ChatGPT.txt", prompts / f"{label}.txt")


def make_pdf(path: Path, pages: int = 12, padding_bytes: int = 900_000, seed: int = 3) -> Path:
    """A valid PDF of about 1 MB: a few pages of text (what text extraction finds) and one large
    unreferenced binary stream standing in for figures and fonts (what uploads carry)."""
    rng = random.Random(seed)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for page in range(pages):
        lines = [f"Page {page + 1}: Deliberation Among Language Models, section {page + 1}."] + [
            f"Line {n}: aggregation, council and debate compared on question set {page}-{n}." for n in range(40)
        ]
        ops = "BT /F1 9 Tf 40 800 Td 11 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
        stream = ops.encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_ref = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % content_ref
        )
        kids.append(len(objects))
    blob = rng.randbytes(padding_bytes)
    objects.append(b"<< /Length %d >>\nstream\n" % len(blob) + blob + b"\nendstream")
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path

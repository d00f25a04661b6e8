"""Prompt files and their placeholders.

Only the three named placeholders are replaced; every other brace (LaTeX, JSON examples) is
left as written, which is why this uses `str.replace` and never `str.format`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.errors import PromptFileError

BUILTIN_PROVIDERS = ("ChatGPT", "Claude", "Gemini")
SYSTEM_COMMON = "{SystemPromptCommon}"
EXAMPLES = "{examples}"
SYNTHESIZE_COMMON = "{SynthesizePromptCommon}"
_FIELD = re.compile(r"\{(\w+)\}")
PLACEHOLDERS = ("SystemPromptCommon", "examples", "SynthesizePromptCommon")


def placeholder_typos(text: str) -> list[tuple[str, str]]:
    """`{Name}` tokens that look like a misspelt placeholder: (found, meant)."""
    typos = []
    for name in dict.fromkeys(_FIELD.findall(text)):
        if name in PLACEHOLDERS:
            continue
        close = difflib.get_close_matches(name, PLACEHOLDERS, n=1, cutoff=0.75)
        if close:
            typos.append((name, close[0]))
    return typos


@dataclass
class PromptLibrary:
    """Reads prompt files from `Prompts/` on demand, so edits apply on the next turn."""

    folder: Path
    warnings: list[str] = field(default_factory=list)  # placeholder typos found, one line each
    # A turn's copy (`for_turn`) keeps each file's text as first read; None: read on every use.
    _texts: dict[str, str] | None = field(default=None, repr=False, compare=False)

    def for_turn(self) -> PromptLibrary:
        """The library as one turn sees it: each file read once, when the turn first needs it.
        A wave of five calls otherwise reads 15 files again (a proposer's prompt and the two it
        includes), between one wave's answers and the next wave's requests (bench row 1); and
        every call of a turn is asked with the same prompts even if a file is edited meanwhile.
        Warnings go to this library's list."""
        return PromptLibrary(self.folder, self.warnings, {})

    def _lint(self, relative: str, text: str) -> None:
        for found, meant in placeholder_typos(text):
            line = (
                f"Prompt file {self.folder / relative}: {{{found}}} is not a placeholder "
                f"- did you mean {{{meant}}}? It is sent as written."
            )
            if line not in self.warnings:
                self.warnings.append(line)

    def _read(self, relative: str) -> str:
        if self._texts is not None and (kept := self._texts.get(relative)) is not None:
            return kept
        text = self._read_file(relative)
        if self._texts is not None:
            self._texts[relative] = text
        return text

    def _read_file(self, relative: str) -> str:
        path = self.folder / relative
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PromptFileError(
                f"Prompt file {path} is missing - restore it, or restart ensemble-tui to get the default back"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            raise PromptFileError(f"Prompt file {path} cannot be read ({reason})") from None

    def _system(self, relative: str) -> str:
        text = self._read(relative)
        self._lint(relative, text)
        if SYSTEM_COMMON in text:
            text = text.replace(SYSTEM_COMMON, self._read("SystemPromptCommon.txt").strip())
        if EXAMPLES in text:
            text = text.replace(EXAMPLES, self._read("ExampleExplanations.txt").strip())
        return text.strip()

    def _user(self, relative: str) -> str:
        text = self._read(relative)
        self._lint(relative, text)
        if SYNTHESIZE_COMMON in text:
            text = text.replace(SYNTHESIZE_COMMON, self._read("SynthesizePromptCommon.txt").strip())
        return text.strip()

    def _per_model(self, folder: str, provider: str) -> str:
        """`<folder>/<provider>.txt`; a provider added by a configuration file may use the
        folder's `Default.txt` instead (the built-in three must have their own)."""
        own = f"{folder}/{provider}.txt"
        if provider in BUILTIN_PROVIDERS or (self.folder / own).exists():
            return own
        return f"{folder}/Default.txt"

    def proposer_system(self, provider: str) -> str:
        return self._system(self._per_model("ProposerSystemPrompts", provider))

    def synthesis_user(self, provider: str) -> str:
        return self._user(self._per_model("SynthesizeFromProposalsPrompts", provider))

    def aggregator_system(self) -> str:
        return self._system("AggregatorSystemPrompt.txt")

    def aggregator_user(self, *, forced: bool) -> str:
        name = "AggregatorForceReplyUserPrompt.txt" if forced else "AggregatorUserPrompt.txt"
        return self._user(name)

    def deliberation(self, name: str, **values: str) -> str:
        """A prompt from `Prompts/Deliberation/`, with `{field}`s filled in one pass.

        One pass means text inserted for a field (a model's answer) is never searched for
        further fields, so an answer cannot smuggle in another part of the prompt.
        """
        template = self._read(f"Deliberation/{name}.txt")
        return _FIELD.sub(lambda match: values.get(match.group(1), match.group(0)), template).strip()

    def claim_map(self, labels: str, answers: str) -> str:
        """The claim mapper's request (`ClaimMapPrompt.txt`), filled in one pass as in `deliberation`."""
        return self._filled("ClaimMapPrompt.txt", {"labels": labels, "answers": answers})

    def claim_map_repair(self, labels: str) -> str:
        """What is sent after an unreadable map (`ClaimMapRepairPrompt.txt`)."""
        return self._filled("ClaimMapRepairPrompt.txt", {"labels": labels})

    def judge(self, **values: str) -> str:
        """An eval judge's request (`JudgePrompt.txt`): reference, history, question, answer_1,
        answer_2, filled in one pass as in `deliberation`."""
        return self._filled("JudgePrompt.txt", values)

    def grade(self, **values: str) -> str:
        """An eval grader's request (`GradePrompt.txt`): reference, history, question,
        known_answer, evidence, answer, filled in one pass."""
        return self._filled("GradePrompt.txt", values)

    def grade_repair(self) -> str:
        """What is sent after an unreadable grade (`GradeRepairPrompt.txt`)."""
        return self._filled("GradeRepairPrompt.txt", {})

    def judge_repair(self) -> str:
        """What is sent after an unreadable verdict (`JudgeRepairPrompt.txt`)."""
        return self._filled("JudgeRepairPrompt.txt", {})

    def _filled(self, relative: str, values: dict[str, str]) -> str:
        template = self._read(relative)
        return _FIELD.sub(lambda match: values.get(match.group(1), match.group(0)), template).strip()

    def check(self, providers: tuple[str, ...], aggregator: bool, deliberation: tuple[str, ...] = ()) -> None:
        """Read every prompt a run will need, so a missing file stops it before any call."""
        for provider in providers:
            self.proposer_system(provider)
            if aggregator:
                self.synthesis_user(provider)
        if aggregator:
            self.aggregator_system()
            self.aggregator_user(forced=False)
            self.aggregator_user(forced=True)
        for name in deliberation:
            self._read(f"Deliberation/{name}.txt")

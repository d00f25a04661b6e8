"""`ensemble-tui search QUERY`: find questions, replies, proposals and claims across every chat
of the home, best match first, one line each (`export --chat ID` takes the ids it prints).

A home made before the search index is indexed first, once, its progress on stderr."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ensemble_tui.commands.context import CommandContext, Needs, add_demo

if TYPE_CHECKING:
    from ensemble_tui.core.store.search_index import Hit
    from ensemble_tui.core.workspace import Workspace

SNIPPET_CHARS = 100


def search_check(args: argparse.Namespace) -> str | None:
    """A limit of no hits is refused (exit 2): its "Nothing found" read as if the chats held nothing."""
    if args.limit < 1:
        return f"--limit takes a number of hits, 1 or more (not {args.limit})"
    return None


# Reads the home; the one write is the index of a home made before it (in its database).
NEEDS = Needs(home="read", check=search_check)


def add_parser(commands: Any) -> None:
    search = commands.add_parser(
        "search",
        help="find questions, replies, proposals and claims across every chat",
        description=(
            'Search every chat of the home: words, "exact phrases", prefixes (transform*) and -excluded '
            "words (search softmax -temperature; every word after -- is the query's); accents and case "
            "are ignored. One line per hit: chat id, date, kind, snippet with the "
            "match in [brackets]; `export --chat ID` takes the ids it prints."
        ),
    )
    search.add_argument("query", metavar="QUERY", nargs="+", help="what to look for")
    search.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="the home folder (as for ask)")
    add_demo(search, "the demo's chats (as `ask --demo` keeps them)")
    search.add_argument("--json", action="store_true", help="print one JSON record per hit, as a list")
    search.add_argument("--limit", metavar="N", type=int, default=20, help="at most N hits (default 20)")


def take_words(args: argparse.Namespace, words: list[str]) -> bool:
    """`search softmax -temperature`: argparse reads `-temperature` as an unknown option; a word
    of one dash is a word the query excludes, so it joins the query. Anything else is refused."""
    if not all(len(word) > 1 and word[0] == "-" and word[1] != "-" for word in words):
        return False
    args.query.extend(words)
    return True


def run(args: argparse.Namespace, context: CommandContext) -> int:
    return run_search(context.workspace, " ".join(args.query), limit=args.limit, as_json=args.json)


def run_search(
    workspace: Workspace,
    query: str,
    *,
    limit: int = 20,
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Print the hits; 0 when the search ran (even with no hit), 1 when the history cannot be read."""
    out, err = out or sys.stdout, err or sys.stderr
    archive = workspace.archive
    try:
        if not archive.search_index_ready():

            def progress(done: int, total: int) -> None:
                print(f"\rIndexing the chats for search: {done}/{total}", end="", file=err, flush=True)

            archive.build_search_index(progress)
            print(file=err)
        hits = archive.search(query, max(0, limit))
    except sqlite3.Error as exc:
        print(f"ensemble-tui: the history cannot be searched ({exc}).", file=err)
        return 1
    if as_json:
        print(json.dumps([hit.to_json() for hit in hits], ensure_ascii=False, indent=2), file=out)
        return 0
    if not hits:
        print(f"Nothing found for \u201c{query.strip()}\u201d{why_nothing(query)}.", file=err)
        return 0
    width = max(len(hit.session) for hit in hits)
    for hit in hits:
        print(f"{hit.session:<{width}}  {hit.at[:16].replace('T', ' '):<16}  {hit.kind:<8}  {line_of(hit)}", file=out)
    return 0


def why_nothing(query: str) -> str:
    """Said after "Nothing found" when the query itself holds no word to look for."""
    from ensemble_tui.core.store.search_text import parse_query

    if parse_query(query).fts is not None:
        return ""
    excluded = any(word.startswith("-") for word in query.split())
    return ": it has no word to look for" + (" (-excluded words alone find nothing)" if excluded else "")


def line_of(hit: Hit) -> str:
    """The snippet on one line, its matches in [brackets], control characters left out."""
    from ensemble_tui.core.store.search_index import MATCH_END, MATCH_START
    from ensemble_tui.core.text.sanitize import strip_control

    marked = hit.snippet.replace(MATCH_START, "[").replace(MATCH_END, "]")
    flat = " ".join(strip_control(marked).split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"

"""MkDocs hook: a link from a page to a repository file outside docs/ becomes the file's path.

The site holds only docs/; a link such as ``[tables](../benchmarks/hetero/README.md)``
would be dead on it. Where the target exists in the source tree, the link is
written as the path in the repository (``benchmarks/hetero/README.md``, in the
sdist and the checkout), which the reader has. A target that does not exist is
left alone, so MkDocs still reports it (and ``--strict`` fails).
"""

from __future__ import annotations

import re
from pathlib import Path

LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<target>\.\./[^)#\s]+)(?:#[^)]*)?\)")


def on_page_markdown(markdown, page, config, files):
    docs = Path(config["docs_dir"]).resolve()
    page_dir = (docs / page.file.src_path).parent
    root = docs.parent

    def replace(match: re.Match) -> str:
        target = (page_dir / match["target"]).resolve()
        if target.is_relative_to(docs) or not target.is_relative_to(root) or not target.exists():
            return match[0]
        path = target.relative_to(root).as_posix()
        text = match["text"].strip("`")
        label = f"`{path}`" if text == path else f"{match['text']} (`{path}`)"
        return f"{label} in the source repository"

    return LINK.sub(replace, markdown)

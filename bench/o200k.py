"""o200k_base token counts, offline: tiktoken's encoding with the ranks the bpe-openai wheel ships.

tiktoken fetches its rank files over the network on first use and caches them
in ``TIKTOKEN_CACHE_DIR`` under the SHA-1 of the file's URL; nothing can be
downloaded here. The ``bpe-openai`` wheel carries the same o200k_base rank
file, gzipped. This module unpacks it into a bench-only cache under that
name, after checking it has the SHA-256 tiktoken itself expects, so that
``tiktoken.get_encoding("o200k_base")`` builds the real encoding (its own
regex and special tokens) without a network call. Both packages are
installed by ``bench/setup_baselines.sh``, not as project dependencies.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any

RANKS_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
"""The URL tiktoken's o200k_base definition loads; its SHA-1 names the cache file."""
RANKS_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""The hash tiktoken checks the rank file against (tiktoken_ext/openai_public.py)."""
CACHE = Path(__file__).resolve().parent / ".baselines" / "tiktoken"

INSTALL_HINT = "run bench/setup_baselines.sh (pip install tiktoken bpe-openai into this venv)"


class TokenizerMissing(RuntimeError):
    """tiktoken or the bpe-openai rank file is not installed."""


def _wheel_ranks() -> Path:
    """The gzipped rank file inside the installed bpe-openai package, found without importing it.

    Importing bpe_openai would load its 74 MB native module for nothing.
    """
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerMissing(f"bpe-openai is not installed: {INSTALL_HINT}")
    ranks = Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k_base.tiktoken.gz"
    if not ranks.is_file():
        raise TokenizerMissing(f"{ranks} missing from bpe-openai: {INSTALL_HINT}")
    return ranks


def _fill_cache() -> None:
    cached = CACHE / hashlib.sha1(RANKS_URL.encode()).hexdigest()
    if cached.is_file() and hashlib.sha256(cached.read_bytes()).hexdigest() == RANKS_SHA256:
        return
    data = gzip.decompress(_wheel_ranks().read_bytes())
    if hashlib.sha256(data).hexdigest() != RANKS_SHA256:
        raise TokenizerMissing("bpe-openai's o200k_base ranks are not the ones tiktoken expects")
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(cached)


@cache
def encoding() -> Any:
    """tiktoken's o200k_base ``Encoding``, built from the local cache only."""
    if importlib.util.find_spec("tiktoken") is None:
        raise TokenizerMissing(f"tiktoken is not installed: {INSTALL_HINT}")
    _fill_cache()
    os.environ["TIKTOKEN_CACHE_DIR"] = str(CACHE)
    import tiktoken

    return tiktoken.get_encoding("o200k_base")


def tokens(text: str) -> int:
    """o200k_base tokens of ``text``; special-token look-alikes count as plain text."""
    return len(encoding().encode(text, disallowed_special=()))


if __name__ == "__main__":
    print(f"o200k_base ready: 'hello world' is {tokens('hello world')} tokens")

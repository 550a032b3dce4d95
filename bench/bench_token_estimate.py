"""How the token estimator (``actui.tokens``) compares with OpenAI's o200k_base tokenizer.

`PYTHONPATH=src:<site-packages with bpe_openai> .venv/bin/python bench/bench_token_estimate.py`

The project ships no tokenizer, so this bench borrows one: the ``bpe-openai``
wheel (its BPE ranks are inside it; nothing is downloaded), installed into a
scratch virtualenv of the same Python, never into the project. It collects the
result texts of the MiniWoB++ episodes of ``bench_result_size`` and a few prose
samples, and prints estimate ÷ real tokens: the estimator is meant to err high.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics

from bench_result_size import episode_texts

from actui.tokens import estimate_tokens

PROSE = {
    "english": "Enter the value of Gender into the text field and press Submit. ",
    "german": "Die Einstellungen werden gespeichert, sobald Sie auf Übernehmen klicken. ",
    "russian": "Настройки будут сохранены, когда вы нажмёте кнопку Применить. ",
    "japanese": "設定は「適用」ボタンを押すと保存されます。",
    "mixed case": "qZxWvTkJpLmN rTyUiOpAsDfG ",
    "base64": "aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=",
}


def main(tasks: int, seeds: int) -> None:
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit("needs bpe-openai: pip install it into a scratch virtualenv") from None
    encoding = bpe_openai.get_encoding("o200k_base")

    def ratio(text: str) -> float:
        return estimate_tokens(text) / max(1, len(encoding.encode(text)))

    solved, _ = asyncio.run(episode_texts(tasks, seeds))
    texts = [text for episode in solved for text in episode if text]
    ratios = [ratio(text) for text in texts]
    real = sum(len(encoding.encode(text)) for text in texts)
    print(
        f"{len(texts)} MiniWoB++ results: estimate / o200k_base min {min(ratios):.2f}, "
        f"median {statistics.median(ratios):.2f}, max {max(ratios):.2f}, "
        f"overall {sum(estimate_tokens(t) for t in texts) / real:.2f} "
        f"({sum(len(t) for t in texts) / real:.2f} characters per real token)"
    )
    for name, sample in PROSE.items():
        print(f"{name}: {ratio(sample * 4):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    main(args.tasks, args.seeds)

"""Configuration precedence: defaults < global file < project file < environment."""

from __future__ import annotations

from pathlib import Path

from actui.config import load_config


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_each_key_takes_the_most_specific_source(tmp_path: Path) -> None:
    home = tmp_path / "xdg"
    project = tmp_path / "project"
    _write(home / "actui" / "config.toml", 'headless = true\ndelivery_policy = "foreground"\n')
    _write(project / ".actui.toml", 'delivery_policy = "ax_only"\nbrowser_use = "off"\n')
    env = {"XDG_CONFIG_HOME": str(home), "ACTUI_BROWSER_USE": "yes"}
    cfg = load_config(env, project)
    assert cfg.headless is True and cfg.sources["headless"].startswith("global")
    assert cfg.delivery_policy == "ax_only" and cfg.sources["delivery_policy"].startswith("project")
    assert cfg.browser_use is True and cfg.sources["browser_use"] == "env ACTUI_BROWSER_USE"
    assert cfg.sources["chrome_executable"] == "default"


def test_values_that_cannot_be_understood_are_ignored(tmp_path: Path) -> None:
    env = {
        "XDG_CONFIG_HOME": str(tmp_path),
        "ACTUI_HEADLESS": "perhaps",
        "ACTUI_DELIVERY_POLICY": "teleport",
    }
    cfg = load_config(env, tmp_path)
    assert cfg.headless is False
    assert cfg.sources["headless"] == "default; ignored invalid ACTUI_HEADLESS='perhaps'"
    assert cfg.delivery_policy == "background"
    assert "teleport" in cfg.sources["delivery_policy"]


def test_an_unparsable_file_is_reported_and_skipped(tmp_path: Path) -> None:
    _write(tmp_path / ".actui.toml", "headless = = true")
    cfg = load_config({"XDG_CONFIG_HOME": str(tmp_path / "none")}, tmp_path)
    assert "error" in cfg.files["project"] and cfg.headless is False
    assert "not found" in cfg.files["global"]

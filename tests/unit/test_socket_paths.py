"""A directory for sockets is the one asked for while a path ``room`` longer fits, else /tmp."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actui.backends.socket_paths import SHORT_DIR, SUN_PATH_MAX, roomy


@given(
    st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=200),
    st.integers(0, 120),
)
def test_the_directory_asked_for_is_kept_exactly_when_its_sockets_fit(
    preferred: str, room: int
) -> None:
    chosen = roomy(preferred, room)
    fits = len(preferred.encode()) + room <= SUN_PATH_MAX
    assert chosen == (preferred if fits else SHORT_DIR)


def test_a_temp_dir_of_35_characters_still_holds_chromiums_socket_and_36_do_not() -> None:
    """The edge the sandbox met: its run dir under TMPDIR, Chromium's socket under that."""
    below = len("/actui-sandbox-xxxxxxxx/tmp/org.chromium.Chromium.XXXXXX/SingletonSocket")
    assert roomy("/" + "t" * 34, below) == "/" + "t" * 34
    assert roomy("/" + "t" * 35, below) == SHORT_DIR

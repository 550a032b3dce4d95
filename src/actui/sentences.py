"""The agent's sentence for a typed error or a refused step, made from its data.

Backends say what happened as data (``TargetGone("the window 'Save' of gedit",
"was closed", then="find_roots")``, ``Refused(why, needs, policy)``); this module
alone says what that means for the agent and what to do next, so the same
situation reads the same whichever backend met it. It knows no platform and
holds no state; ``actui.errors`` renders its classes' messages through it.
"""

from __future__ import annotations

import signal
from typing import Literal

from actui.quoting import quote
from actui.refusals import Blocked, Refused

Then = Literal["", "find_roots", "observe_ui", "launch_browser"]
"""The tool whose call brings an agent back to something that exists."""
Instead = Literal[
    "", "ref", "keys", "text_field", "visual", "parent", "click_dialog", "click_first",
    "look_again", "page",
]  # fmt: skip
"""What to do instead of an unsupported step."""
Lacks = Literal["target", "point"]
"""What a step needs that its request to a backend did not carry."""

_INSTEAD: dict[Instead, str] = {
    "": "",
    "ref": "use a semantic ref instead",
    "keys": "use keys",
    "text_field": "type it through an accessible text field instead",
    "page": "act on the page through its browser_page root (find_roots), where text is "
    "inserted whole, or leave that character out",
    "visual": "observe it with mode 'visual' to read its text from the picture",
    "parent": "act on its parent or use coordinates",
    "click_dialog": "close the dialog with a click first",
    "click_first": "click it first or act on a focusable element",
    "look_again": "observe_ui again and act on the element where it is now, or use its ref "
    "with a semantic action",
}


def _sentence(fact: str, advice: str) -> str:
    return f"{fact}; {advice}." if advice else f"{fact}."


def as_sentence(fact: str) -> str:
    """A fact written to follow another sentence: capitalized and ended with a period."""
    fact = fact.strip()
    ended = fact.endswith((".", "!", "?"))
    return fact[:1].upper() + fact[1:] + ("" if ended or not fact else ".")


def gone(what: str, why: str, then: Then) -> str:
    """``what`` no longer exists (``why`` says how), and which call finds what does."""
    return _sentence(f"{what} {why}", f"call {then} again" if then else "")


def unsupported(what: str, why: str, instead: Instead) -> str:
    """``what`` cannot be done here (``why``), and what to do instead."""
    return advised(f"{what} {why}", instead)


def advised(fact: str, instead: Instead) -> str:
    """A fact that stood in the way, and what to do instead."""
    return _sentence(fact, _INSTEAD[instead])


def lacking(lacks: Lacks) -> str:
    """Why a step that came without its element or its point cannot be delivered."""
    if lacks == "target":
        return "needs an element to act on here, and this one has none a backend can address"
    return "needs a point on screen here, and the state does not know where the element is"


def unknown_key(key: str, known: tuple[str, ...]) -> str:
    """A key name this keyboard does not have, and the names it does."""
    return (
        f"the key {key!r} is not on this keyboard; name a single character or one of "
        f"{', '.join(known)}, with ctrl, shift, alt or meta held around it."
    )


_UNBLOCK: dict[Blocked, str] = {
    "": "",
    "disabled": "observe again to see what it is waiting for",
    "menu_closed": "open its menu first, then press it",
    "modal_dialog": "close it with a click",
}


def blocked(reason: str, blocked_by: Blocked) -> str:
    """A step's reason, with what to do about what stands in its way."""
    return f"{reason}; {_UNBLOCK[blocked_by]}" if blocked_by else reason


def browser_silent(within_s: float, exit_status: int | None, last_words: str) -> str:
    """A browser that never answered: how and when it ended, what it said last, what to check."""
    if exit_status is None:
        fact = (
            f"Chromium did not answer on its debugging pipe within {within_s:.0f} s; it was stopped"
        )
    else:
        fact = (
            f"Chromium {_ended(exit_status)} {within_s:.1f} s after it started, before answering "
            "on its debugging pipe"
        )
    said = f"; its last words: {quote(last_words, 500)}" if last_words else ""
    return f"{fact}{said}. Check that the executable runs (try it with --headless=new)."


def _ended(status: int) -> str:
    """``was killed by signal SIGABRT`` or ``exited with code 1``, from a return code."""
    if status >= 0:
        return f"exited with code {status}"
    try:
        return f"was killed by signal {signal.Signals(-status).name}"
    except ValueError:
        return f"was killed by signal {-status}"


def display_gone(display: str, *, wayland: bool = False) -> str:
    """The display is gone with its applications: only a new desktop helps."""
    what, server = ("Wayland display", "compositor") if wayland else ("X display", "X server")
    return (
        f"the {what} {display} is gone (its {server} exited or closed the "
        "connection): nothing on it can be observed or operated any more. Start a "
        "new desktop (for example `actui sandbox run -- <command>`) and launch the "
        "apps again there."
    )


def bus_gone(at: str) -> str:
    """The accessibility bus closed (at the clock time ``at``, when known): its
    applications must be restarted to be read. :func:`bus_lost`, and what to call."""
    return gone("the accessibility bus", _bus_lost(at), "find_roots")


def bus_lost(at: str) -> str:
    """The notice of a lost accessibility bus: the fact of :func:`bus_gone`, no advice."""
    return gone("the accessibility bus", _bus_lost(at), "")


def _bus_lost(at: str) -> str:
    when = f"at {at}" if at else "(its connection closed)"
    return (
        f"went away {when}: applications connected to it before then cannot be read until "
        "they are restarted"
    )


def page_navigated(page: str) -> str:
    """A script's document went away under it: its value is lost, its effects may not be."""
    return (
        f"{page} moved to another document while the expression ran, so its value was "
        "lost and it may have run in part. Evaluate again once the new document has "
        "loaded (wait_for or observe_ui shows it)."
    )


def step_timeout(kind: str, within_s: float, sent: bool) -> str:
    """A step that ran out of time: whether it may have acted decides what to do next."""
    if not sent:
        return (
            f"the {kind} target did not answer within {within_s:g} s; nothing was sent. "
            "Observe again before retrying."
        )
    return (
        f"{kind} did not finish within {within_s:g} s; the application may be busy. "
        "Observe again before retrying."
    )


def refusal(refused: Refused) -> tuple[str, str]:
    """The error code and sentence of a step a backend sent nothing of.

    Under ``ax_only`` no retry can deliver physical input (``coordinate_blocked``);
    otherwise the foreground policy can (``foreground_required``).
    """
    why, policy = refused.why, refused.policy
    if refused.needs == "pixels":
        if policy == "ax_only":
            return "foreground_required", (
                f"{why}, and the ax_only policy (headless) sends no physical input, so it can "
                "be observed but not operated."
            )
        return "foreground_required", (
            f"{why}, so only physical input at x/y reaches it (observe it with mode 'visual' "
            "to see where)."
        )
    if refused.needs == "activation":
        return "foreground_required", (
            f"{why} and the {policy} policy never activates; retry in the foreground."
        )
    if policy == "ax_only":
        return "coordinate_blocked", (
            f"{why}: that needs physical input (pointer or keyboard), which the ax_only "
            "policy never sends."
        )
    return "foreground_required", (
        f"{why}: physical input (pointer or keyboard) is needed; retry with the foreground "
        "delivery policy."
    )

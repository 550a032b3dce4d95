"""The errors an agent can see.

Each class carries a machine-readable ``code`` and the data of what went wrong;
its ``message`` is the sentence for the agent (what was wrong and what to do
next). Classes raised by backends carry data only and leave the sentence to
``actui.sentences``, so no backend writes advice to the agent. Platform
exceptions (D-Bus, X11, CDP) never cross the backend seam; backends translate
them into these.
"""

from __future__ import annotations

from actui import sentences
from actui.refusals import Refused
from actui.sentences import Instead, Lacks, Then


class ActuiError(Exception):
    """Base class: ``code`` for programs, the message for the agent."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self._message = message

    @property
    def message(self) -> str:
        return self._message


class InvalidParams(ActuiError):
    """A tool argument broke the contract; ``field`` names it."""

    code = "invalid_params"

    def __init__(self, field: str, problem: str, fix: str = "") -> None:
        text = f"{field}: {problem}"
        if fix:
            text += f" {fix}"
        super().__init__(text)
        self.field = field


class FieldRule(ValueError):
    """A contract rule a parameter broke, raised inside a parameter model's validation.

    ``key`` names the offending key relative to the value being validated
    (``""``: the value itself); :func:`actui.tools.contract.validate` prefixes where
    that value sits and turns it into :class:`InvalidParams`. A ``ValueError``
    so that pydantic carries it to the contract with its location.
    """

    def __init__(self, key: str, problem: str, fix: str = "") -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem
        self.fix = fix


class UnknownState(ActuiError):
    code = "unknown_state"


class _Vanished(ActuiError):
    """Something an agent named no longer exists: ``what`` it was, ``why`` it is gone,
    and ``then`` the tool that finds what exists now. Without ``why``, ``what`` is
    already the whole sentence (written above the seam)."""

    def __init__(self, what: str, why: str = "", *, then: Then = "") -> None:
        super().__init__(f"{what} {why}" if why else what)
        self.what = what
        self.why = why
        self.then = then

    @property
    def message(self) -> str:
        return sentences.gone(self.what, self.why, self.then) if self.why else self.what


class UnknownRef(_Vanished):
    code = "stale_ref"


class StaleResourceStateError(ActuiError):
    """A write (or pinned read) from an epoch that is no longer current."""

    code = "stale_state"

    def __init__(self, resource_key: str, expected_epoch: int, current_epoch: int) -> None:
        super().__init__(
            f"stale state: {resource_key} has changed since this state was observed "
            f"(state epoch {expected_epoch}, current epoch {current_epoch}). Nothing was "
            "sent. Use the newest stateId returned for this window, or call observe_ui again."
        )
        self.resource_key = resource_key
        self.expected_epoch = expected_epoch
        self.current_epoch = current_epoch


class StaleDocument(ActuiError):
    """The page navigated since the state was observed: its refs name nothing now."""

    code = "stale_state"

    def __init__(self, root_ref: str) -> None:
        super().__init__(
            f"stale state: the page {root_ref} navigated since this state was observed, so its "
            "refs no longer exist. Nothing was sent. Call observe_ui on it again."
        )


class SchedulerClosed(ActuiError):
    code = "shutting_down"


class TargetGone(_Vanished):
    """A root or element no longer exists. ``pid``, when known, is its application's
    process, so the boundary can tell a crash from a window that closed."""

    code = "target_gone"

    def __init__(self, what: str, why: str = "", *, then: Then = "", pid: int = 0) -> None:
        super().__init__(what, why, then=then)
        self.pid = pid


class ForegroundRequired(ActuiError):
    code = "foreground_required"


class CoordinateBlocked(ActuiError):
    """Physical input may not be sent: ``why``, and what to do ``instead`` (when the
    backend knows; without it, ``why`` is the whole sentence)."""

    code = "coordinate_blocked"

    def __init__(self, why: str, *, instead: Instead = "") -> None:
        super().__init__(why)
        self.why = why
        self.instead = instead

    @property
    def message(self) -> str:
        return sentences.advised(self.why, self.instead) if self.instead else self.why


def refusal_error(refused: Refused) -> ForegroundRequired | CoordinateBlocked:
    """A refusal as the error to raise where a caller cannot take it as an answer."""
    code, sentence = sentences.refusal(refused)
    return (
        CoordinateBlocked(sentence)
        if code == CoordinateBlocked.code
        else ForegroundRequired(sentence)
    )


class CaptureFailed(ActuiError):
    """The window's pixels could not be read (minimized, empty, huge or odd depth)."""

    code = "capture_failed"


class DialogOpen(ActuiError):
    """A page command was refused because a JavaScript dialog blocks the page."""

    code = "dialog_open"

    def __init__(self, dialog: str) -> None:
        super().__init__(
            f"The page shows {dialog} and does not answer until it is closed; "
            "press its OK or Cancel button (observe the page to get their refs)."
        )


class PageNavigated(ActuiError):
    """A page's document was replaced while a script ran in it, so its value was lost."""

    code = "page_navigated"

    def __init__(self, page: str) -> None:
        super().__init__(f"{page} navigated while the expression ran")
        self.page = page

    @property
    def message(self) -> str:
        return sentences.page_navigated(self.page)


class SecureTextUnreadable(ActuiError):
    code = "secure_text_unreadable"

    def __init__(self, ref: str) -> None:
        super().__init__(f"{ref} is a password field; its text is never read or shown.")


class BackendUnavailable(ActuiError):
    code = "backend_unavailable"


class DisplayGone(BackendUnavailable):
    """The display itself is gone (the X server, or the ``wayland`` compositor): the cause to
    name above any bus or registry error.

    Its applications went with it (or cannot draw), so find_roots cannot help:
    only a new desktop can.
    """

    def __init__(self, display: str, *, wayland: bool = False) -> None:
        super().__init__(f"the {'Wayland' if wayland else 'X'} display {display} is gone")
        self.display = display
        self.wayland = wayland

    @property
    def message(self) -> str:
        return sentences.display_gone(self.display, wayland=self.wayland)


class BusGone(BackendUnavailable):
    """The accessibility bus connection closed (``at``, a clock time, when known): what
    was read through it cannot be now."""

    def __init__(self, at: str = "") -> None:
        super().__init__("the accessibility bus went away")
        self.at = at

    @property
    def message(self) -> str:
        return sentences.bus_gone(self.at)


class BrowserSilent(BackendUnavailable):
    """The browser started never answered on its debugging pipe: ``within_s`` after its
    start it had ended with ``exit_status`` (None: it was still running, and was stopped);
    ``last_words`` is the fatal line of its stderr (else its last line)."""

    def __init__(self, within_s: float, exit_status: int | None, last_words: str = "") -> None:
        super().__init__(sentences.browser_silent(within_s, exit_status, last_words))
        self.within_s = within_s
        self.exit_status = exit_status
        self.last_words = last_words


class CallTimeout(ActuiError):
    code = "timeout"


class StepTimeout(CallTimeout):
    """A step's delivery did not finish within ``within_s``; ``sent`` whether any of
    it reached the application (when nothing did, retrying cannot double it)."""

    def __init__(self, kind: str, within_s: float, *, sent: bool) -> None:
        super().__init__(f"{kind} did not finish within {within_s:g} s")
        self.kind = kind
        self.within_s = within_s
        self.sent = sent

    @property
    def message(self) -> str:
        return sentences.step_timeout(self.kind, self.within_s, self.sent)


class UnsupportedAction(ActuiError):
    """``what`` cannot be done here, ``why``, and what to do ``instead``."""

    code = "unsupported_action"

    def __init__(self, what: str, why: str, *, instead: Instead = "") -> None:
        super().__init__(f"{what} {why}")
        self.what = what
        self.why = why
        self.instead = instead

    @property
    def message(self) -> str:
        return sentences.unsupported(self.what, self.why, self.instead)


class Undeliverable(UnsupportedAction):
    """A step reached a backend without what its delivery there ``lacks``: the
    element to act on (a page's element without a DOM node) or a point on screen
    (physical input to an element whose place the state does not know)."""

    def __init__(self, kind: str, lacks: Lacks) -> None:
        super().__init__(kind, sentences.lacking(lacks), instead="ref")
        self.kind = kind
        self.lacks = lacks


class UnknownKey(ActuiError):
    """A chord names a key this backend's keyboard does not have; ``known`` are
    examples of the names it does know (modifiers and single characters aside)."""

    code = "unknown_key"

    def __init__(self, key: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown key {key!r}")
        self.key = key
        self.known = known

    @property
    def message(self) -> str:
        return sentences.unknown_key(self.key, self.known)


class PreconditionFailed(ActuiError):
    """``require`` did not hold in time: nothing was delivered, no epoch consumed."""

    code = "precondition_failed"

    def __init__(
        self, condition: str, timeout_ms: int, closest: list[str], notes: list[str] | None = None
    ) -> None:
        """``notes``: what the check could not look at (a document's pages off screen)."""
        text = (
            f"precondition_failed: {condition} did not hold within {timeout_ms} ms; "
            "nothing was sent and the state is still current."
        )
        if closest:
            text += " Closest: " + "; ".join(closest) + "."
        text += "".join(f" {note}" for note in notes or ())
        super().__init__(text)

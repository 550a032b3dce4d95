"""``Accessibility.getFullAXTree`` responses (one per frame) → one ``RawNode`` tree.

Pure mapping, unit-tested on recorded responses: ignored nodes are dropped and
their children lifted, inline text boxes and the inner editors of native text
fields are dropped (so a field's text shows once, capped, as its value), child
frames hang under their ``Iframe`` node, unnamed controls stay addressable, and
password inputs carry no value and no children. Nodes are kept breadth-first
up to the caps, and every node that lost children is marked ``truncated``.
This module must not talk to the browser.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from actui.backends.base import TEXT_CAP, RawNode, Rect
from actui.backends.cdp.layout import DomFacts, PageLayout
from actui.backends.reads import int_of, list_of, obj_of, objs_of

VALUE_CAP = 512
"""Characters of a node's value kept in a snapshot; ``read_text`` pages the rest."""

AxNode = Mapping[str, object]
_Key = tuple[str, str]  # (frame id, AX node id)

_SKIPPED_ROLES = frozenset({"InlineTextBox"})
_PRESS_ROLES = frozenset(
    {
        "button",
        "link",
        "checkbox",
        "radio",
        "switch",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "tab",
        "option",
        "treeitem",
        "combobox",
        "DisclosureTriangle",
        "PopUpButton",
        "ToggleButton",
        "MenuListOption",
        "ListBoxOption",
    }
)
_TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox", "TextField", "SearchBox"})
_TOGGLE_ROLES = frozenset(
    {"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "ToggleButton"}
)
_SELECT_ROLES = frozenset({"option", "listbox", "MenuListOption", "ListBoxOption"})
_VALUE_ROLES = frozenset({"slider", "spinbutton"})
_NATIVE_EDITORS = frozenset({"INPUT", "TEXTAREA"})
_BOOLEAN_STATES = {
    "focused": "focused",
    "focusable": "focusable",
    "required": "required",
    "multiline": "multiline",
    "readonly": "readonly",
    "multiselectable": "multiselectable",
    "modal": "modal",
    "busy": "busy",
    "selected": "selected",
}


@dataclass(frozen=True)
class BuiltTree:
    tree: RawNode
    node_count: int
    truncated: bool
    title: str
    url: str


def build_tree(
    frames: Mapping[str, Sequence[AxNode]],
    main_frame: str,
    layout: PageLayout,
    *,
    viewport: Rect | None,
    max_nodes: int,
    max_depth: int,
    id_prefix: str = "cdp:",
) -> BuiltTree:
    """One tree rooted at the main frame's ``RootWebArea``, frames grafted in.

    Native ids are ``id_prefix`` + the backend DOM node id; an out-of-process
    frame's tree uses its own prefix, as its ids are its renderer's.
    """
    index = _Index(frames, layout, id_prefix)
    root_key = index.root_of(main_frame)
    if root_key is None:
        empty = RawNode(native_id=f"cdp:frame:{main_frame}", raw_role="RootWebArea")
        return BuiltTree(empty, 1, False, "", "")
    order, kept_children, truncated = _select(index, root_key, max_nodes, max_depth)
    built: dict[_Key, RawNode] = {}
    for key in reversed(order):
        built[key] = _raw_node(
            index,
            key,
            viewport,
            children=tuple(built[k] for k in kept_children[key]),
            truncated=key in truncated,
        )
    root = index.node(root_key)
    return BuiltTree(
        tree=built[root_key],
        node_count=len(order),
        truncated=bool(truncated),
        title=_text(root, "name"),
        url=str(_properties(root).get("url", "")),
    )


def _select(
    index: _Index, root: _Key, max_nodes: int, max_depth: int
) -> tuple[list[_Key], dict[_Key, list[_Key]], set[_Key]]:
    """Breadth-first selection under the caps; which nodes lost children."""
    order: list[_Key] = [root]
    kept: dict[_Key, list[_Key]] = {root: []}
    truncated: set[_Key] = set()
    queue: deque[tuple[_Key, int]] = deque([(root, 1)])
    while queue:
        key, depth = queue.popleft()
        for child in index.children(key):
            if child in kept:
                continue
            if depth >= max_depth or len(order) >= max_nodes:
                truncated.add(key)
                break
            kept[key].append(child)
            kept[child] = []
            order.append(child)
            queue.append((child, depth + 1))
    return order, kept, truncated


class _Index:
    """Lookups over all frames' nodes, and the effective (visible) children."""

    def __init__(
        self, frames: Mapping[str, Sequence[AxNode]], layout: PageLayout, id_prefix: str
    ) -> None:
        self._layout = layout
        self.id_prefix = id_prefix
        self._nodes: dict[_Key, AxNode] = {}
        self._roots: dict[str, list[_Key]] = {}
        for frame, nodes in frames.items():
            ids = {str(n.get("nodeId")) for n in nodes}
            for node in nodes:
                key = (frame, str(node.get("nodeId")))
                self._nodes.setdefault(key, node)
                if str(node.get("parentId", "")) not in ids:
                    self._roots.setdefault(frame, []).append(key)
        self._frames_by_owner = {owner: frame for frame, owner in layout.frame_owners.items()}
        self._children: dict[_Key, list[_Key]] = {}

    def node(self, key: _Key) -> AxNode:
        return self._nodes[key]

    def dom(self, key: _Key) -> DomFacts | None:
        backend_id = self._nodes[key].get("backendDOMNodeId")
        return self._layout.nodes.get(backend_id) if isinstance(backend_id, int) else None

    def root_of(self, frame: str) -> _Key | None:
        roots = [k for k in self._roots.get(frame, ()) if not self._nodes[k].get("ignored")]
        web = [k for k in roots if _role(self._nodes[k]) == "RootWebArea"]
        found = web or roots
        return found[0] if found else None

    def is_secure(self, key: _Key) -> bool:
        facts = self.dom(key)
        return facts is not None and facts.tag == "INPUT" and facts.input_type == "password"

    def children(self, key: _Key) -> list[_Key]:
        cached = self._children.get(key)
        if cached is None:
            cached = self._children[key] = self._effective_children(key)
        return cached

    def _effective_children(self, key: _Key) -> list[_Key]:
        facts = self.dom(key)
        if facts is not None and facts.tag in _NATIVE_EDITORS:
            return []
        node = self._nodes[key]
        found: list[_Key] = []
        seen: set[_Key] = {key}
        self._collect(key[0], list_of(node, "childIds"), found, seen)
        owner = node.get("backendDOMNodeId")
        frame = self._frames_by_owner.get(owner) if isinstance(owner, int) else None
        if frame is not None:
            sub_root = self.root_of(frame)
            if sub_root is not None and sub_root not in seen:
                found.append(sub_root)
        if len(found) == 1 and _redundant_text(node, self._nodes[found[0]]):
            return []
        return found

    def _collect(
        self, frame: str, ids: Iterable[object], found: list[_Key], seen: set[_Key]
    ) -> None:
        for child_id in ids:
            key = (frame, str(child_id))
            child = self._nodes.get(key)
            if child is None or key in seen:
                continue
            seen.add(key)
            if child.get("ignored"):
                self._collect(frame, list_of(child, "childIds"), found, seen)
            elif not _is_noise(
                child, self._layout.nodes.get(int_of(child, "backendDOMNodeId", -1))
            ):
                found.append(key)


def _is_noise(node: AxNode, facts: DomFacts | None) -> bool:
    """Inline text boxes, and empty generic leaves nobody can act on."""
    role = _role(node)
    if role in _SKIPPED_ROLES:
        return True
    return (
        role in ("generic", "none")
        and not node.get("childIds")
        and not _text(node, "name")
        and not _properties(node).get("focusable")
        and not (facts is not None and facts.clickable)
    )


def _redundant_text(parent: AxNode, child: AxNode) -> bool:
    return _role(child) == "StaticText" and _text(child, "name") == _text(parent, "name")


def _raw_node(
    index: _Index,
    key: _Key,
    viewport: Rect | None,
    *,
    children: tuple[RawNode, ...],
    truncated: bool,
) -> RawNode:
    node = index.node(key)
    facts = index.dom(key)
    role = _role(node)
    props = _properties(node)
    secure = index.is_secure(key)
    rect = facts.rect if facts is not None else None
    value: str | None = None
    length = 0
    # Without DOM facts an input cannot be shown not to be a password: keep its value out.
    unknown_input = facts is None and role in ("textbox", "searchbox", "combobox")
    if not secure and not unknown_input and "value" in node:
        full = str(obj_of(node, "value").get("value", ""))
        value, length = full[:VALUE_CAP], len(full)
    backend_id = node.get("backendDOMNodeId")
    native_id = (
        f"{index.id_prefix}{backend_id}" if isinstance(backend_id, int) else f"cdp:ax:{key[1]}"
    )
    return RawNode(
        native_id=native_id,
        raw_role=role,
        name=_text(node, "name"),
        description=_text(node, "description"),
        value=value,
        value_length=length,
        states=_states(props, rect, viewport),
        caps=_caps(role, props, facts),
        rect=rect,
        secure=secure,
        truncated=truncated,
        children=children,
    )


def _states(
    props: Mapping[str, object], rect: Rect | None, viewport: Rect | None
) -> frozenset[str]:
    states = {name for prop, name in _BOOLEAN_STATES.items() if props.get(prop) is True}
    if not props.get("disabled"):
        states |= {"enabled", "sensitive"}
    if "editable" in props and not props.get("readonly"):
        states.add("editable")
    if "checked" in props:
        states.add("checkable")
        checked = str(props["checked"])
        states |= {"true": {"checked"}, "mixed": {"indeterminate"}}.get(checked, set())
    if str(props.get("pressed", "false")) == "true":
        states.add("pressed")
    if "expanded" in props:
        states |= {"expandable", "expanded" if props["expanded"] is True else "collapsed"}
    if "selected" in props:
        states.add("selectable")
    if str(props.get("invalid", "false")) not in ("false", ""):
        states.add("invalid")
    if rect is not None and not rect.empty:
        states.add("visible")
        if viewport is None or _intersects(rect, viewport):
            states.add("showing")
    return frozenset(states)


def _caps(role: str, props: Mapping[str, object], facts: DomFacts | None) -> frozenset[str]:
    caps: set[str] = set()
    disabled = bool(props.get("disabled"))
    clickable = facts is not None and facts.clickable
    if not disabled and (role in _PRESS_ROLES or clickable):
        caps.add("press")
    editable = "editable" in props and not props.get("readonly")
    if not disabled and role in _TEXT_ROLES and editable:
        caps |= {"setText", "typeText"}
    if not disabled and role in _TOGGLE_ROLES:
        caps.add("toggle")
    select_box = role == "combobox" and facts is not None and facts.tag == "SELECT"
    if not disabled and (role in _SELECT_ROLES or select_box):
        caps.add("select")
    if not disabled and role in _VALUE_ROLES and props.get("settable"):
        caps.add("setValue")
    if props.get("focusable") and not disabled:
        caps.add("focus")
    if "expanded" in props and not disabled:
        caps.add("expand")
    if role == "RootWebArea" or (facts is not None and facts.scrollable):
        caps.add("scroll")
    return frozenset(caps)


def _intersects(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def _role(node: AxNode) -> str:
    return str(obj_of(node, "role").get("value", ""))


def _text(node: AxNode, field: str) -> str:
    return str(obj_of(node, field).get("value", ""))[:TEXT_CAP].strip()


def _properties(node: AxNode) -> dict[str, object]:
    return {
        str(p.get("name")): obj_of(p, "value").get("value") for p in objs_of(node, "properties")
    }
